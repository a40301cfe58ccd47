/**
 * The ingest gateway (express): authentication, limits, validation and classification of the
 * /ingest/* surface, atomic appends to the event log, /v1/openapi.json, /readyz and /metrics.
 *
 * @example
 * const gateway = await createGateway(loadGatewayConfig(process.env), { pool, appender, codec });
 * gateway.app.listen(8080);
 */
export { createGateway, type Gateway, type GatewayDeps } from './app.js';
export { loadGatewayConfig, type GatewayConfig } from './config.js';
export { systemClock, type Clock } from './clock.js';
export { createGatewayServer } from './http/server.js';
export { buildOpenApiDocument, type OpenApiDocument } from './openapi/document.js';
export { AUTH_DETAIL, type Principal } from './auth/resolve-principal.js';
export { LIMITS } from './limits/policy.js';
