export { createConsole, type ConsoleDeps } from './app.js';
export { loadConsoleConfig, type ConsoleConfig } from './config.js';
export type { ConsoleContext, SessionViewer } from './context.js';
export { html, escapeHtml, when, Html } from './html.js';
export {
  page,
  csrfField,
  notice,
  ACCOUNT_NAV,
  type NavItem,
  type Viewer,
  type AccountFrame,
} from './pages/layout.js';
export { accountOf, requireAction, sendAccountPage, type AccountRequest } from './routes/account-access.js';
export {
  can,
  assignableRoles,
  canChangeMember,
  type ConsoleAction,
  type ConsoleRole,
} from './permissions.js';
export { totpCode } from './totp.js';
