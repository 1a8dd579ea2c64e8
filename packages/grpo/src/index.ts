export {
  type BackendAttempt,
  type BackendChoice,
  type BackendReport,
  DEFAULT_BACKEND_ORDER,
  type InitBackendOptions,
  initBackend,
} from './backend/init-backend';
export { linear, matMul2d } from './ops/linear';
