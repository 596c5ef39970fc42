/** Role routing types, shared by the config loader and the model client. */
export type Role = 'worker' | 'evaluator' | 'prep';
export type RoleEndpoint = { baseUrl: string; apiKey: string; model: string };
/** A role may be unconfigured: the server starts without a provider. */
export type RoleEndpoints = Partial<Record<Role, RoleEndpoint>>;
