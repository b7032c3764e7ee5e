// The admin app's per-request values: the HTTP layer's, plus the status page's signed-in session.
import type { AppEnv } from '../app-env.js';
import type { AdminSession } from './session-cookie.js';

export interface AdminEnv {
  Variables: AppEnv['Variables'] & {
    /** Sign-in mode: the person the session cookie names, when the request was authenticated by it. */
    adminSession: AdminSession | undefined;
  };
}
