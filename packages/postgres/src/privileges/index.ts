export * from './service-roles.js';
export * from './apply-privileges.js';
