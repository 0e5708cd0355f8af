/**
 * Row-level security does not bind superusers or roles with BYPASSRLS. When the login role is one of those (the
 * embedded database, a development server), each connection switches to this role, which has only the table
 * privileges the application needs (and no UPDATE or DELETE on the audit store).
 */
export const RUNTIME_ROLE = 'tessera_app';
