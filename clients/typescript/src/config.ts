// Where a client finds the hub and its credentials: options, then KXM_* variables, then at most one
// credentials file (the local state a hub on this machine wrote, or the per-user profile's), exactly
// as the Python client's kxm_grpc.client.config.resolve and state_for do.
import { existsSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve as absolute } from "node:path";

/** The hub address used when none is given anywhere. */
export const DEFAULT_ADDRESS = "127.0.0.1:7331";

/** The environment the resolution reads (`process.env` unless given). */
export type Environment = Readonly<Record<string, string | undefined>>;

/** What a caller may give; anything left out is resolved from the environment and credentials file. */
export interface ConfigOptions {
  /** `host:port` of the hub (one address; a comma-separated list is not supported). */
  address?: string;
  /** The bearer token (a project token, or the admin token with `admin`). */
  token?: string;
  /** Look for the admin token (`KXM_ADMIN_TOKEN`, the file's `admin_token`) instead of a project token. */
  admin?: boolean;
  /** The project (`x-kxm-project`), and which of the file's `projects` tokens to use. */
  project?: string;
  /** Act as this agent (with `agentKey`). */
  agentId?: string;
  /** The agent's key, as RegisterAgent returned it. */
  agentKey?: string;
  /** PEM file of the CA that signed the hub's certificate; enables TLS trusting only that CA. */
  tlsCa?: string;
  /** PEM client certificate (mTLS), with `tlsKey`. */
  tlsCert?: string;
  /** PEM key of `tlsCert`. */
  tlsKey?: string;
  /** Use TLS even without `tlsCa` or a client certificate (the system's trusted CAs). */
  tls?: boolean;
  /** The tool-policy attempt token (`x-kxm-attempt-token`). */
  attemptToken?: string;
  /** The tool-policy session token (`x-kxm-session-token`). */
  sessionToken?: string;
}

/**
 * The settings a client runs with, every one resolved. `resolveConfig` makes it safe to print: its
 * `toJSON` and `util.inspect` show `token`, `agentKey`, `attemptToken` and `sessionToken` as `(set)`.
 */
export interface ResolvedConfig {
  /** The hub's `host:port` (or the base URL, when given as `http://…` / `https://…`). */
  readonly address: string;
  /** The bearer token, or undefined when none was found (the hub then answers UNAUTHENTICATED). */
  readonly token: string | undefined;
  /** Where the token came from: `"option"`, a variable's name, or the credentials file's path. */
  readonly tokenSource: string | undefined;
  readonly project: string | undefined;
  readonly agentId: string | undefined;
  readonly agentKey: string | undefined;
  readonly attemptToken: string | undefined;
  readonly sessionToken: string | undefined;
  /** Whether the connection uses TLS. */
  readonly tls: boolean;
  /** PEM file paths (CA, client certificate, its key), when given. */
  readonly tlsCa: string | undefined;
  readonly tlsCert: string | undefined;
  readonly tlsKey: string | undefined;
  /** The credentials file that was read (absolute path), or undefined when none applied or existed. */
  readonly credentialsFile: string | undefined;
}

/** The secret settings of a ResolvedConfig: readable by property access, never printed. */
const SECRETS = ["token", "agentKey", "attemptToken", "sessionToken"] as const;

/** The config as it is printed: each secret that is set shown as `(set)`. */
function redacted(config: ResolvedConfig): Record<string, unknown> {
  const shown: Record<string, unknown> = { ...config };
  for (const name of SECRETS) {
    if (shown[name] !== undefined) {
      shown[name] = "(set)";
    }
  }
  return shown;
}

/**
 * The config, safe to print: `JSON.stringify` (its `toJSON`) and Node's `util.inspect` /
 * `console.log` show every setting with the secrets (token, agent key, tool-policy tokens) as
 * `(set)`; property access still reads them. Both methods are non-enumerable, so spreading the
 * config or listing its keys sees the settings only.
 */
function hideSecrets(config: ResolvedConfig): ResolvedConfig {
  return Object.defineProperties(config, {
    toJSON: { value: (): Record<string, unknown> => redacted(config) },
    [Symbol.for("nodejs.util.inspect.custom")]: {
      value: (depth: number, options: object, inspect: (value: unknown, options: object) => string): string =>
        `ResolvedConfig ${inspect(redacted(config), options)}`,
    },
  });
}

/** The content of a credentials file that matters to a client. */
interface CredentialsFile {
  address?: unknown;
  admin_token?: unknown;
  projects?: unknown;
}

const nonEmpty = (value: string | undefined): string | undefined => (value ? value : undefined);

const isFile = (path: string): boolean => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/** The file's JSON object, or `{}` when it is missing, unreadable or not a JSON object. */
function readCredentials(path: string | undefined): CredentialsFile {
  if (path === undefined) {
    return {};
  }
  try {
    const data: unknown = JSON.parse(readFileSync(path, "utf8"));
    return typeof data === "object" && data !== null && !Array.isArray(data) ? (data as CredentialsFile) : {};
  } catch {
    return {};
  }
}

/**
 * The credentials file a client reads (at most one), or undefined when none applies or it does not
 * exist:
 *
 * 1. `$KXM_CREDENTIALS` when set;
 * 2. else `$KXM_DATA_DIR/credentials.json` when `KXM_DATA_DIR` is set;
 * 3. else `./.kxm/credentials.json` when it or `./.kxm/agents` exists (local state);
 * 4. else the per-user profile `${XDG_CONFIG_HOME:-$HOME/.config}/kxm/credentials.json`, when it
 *    exists and either no address was given (`address`, else `KXM_ADDR`) or the profile's
 *    `address` (default `127.0.0.1:7331`) is that address.
 *
 * A file that applies but is missing never falls through to the next one.
 */
export function credentialsFileFor(address?: string, env: Environment = process.env): string | undefined {
  const explicit = nonEmpty(env.KXM_CREDENTIALS);
  if (explicit !== undefined) {
    return isFile(explicit) ? absolute(explicit) : undefined;
  }
  const dataDir = nonEmpty(env.KXM_DATA_DIR);
  if (dataDir !== undefined) {
    const path = join(dataDir, "credentials.json");
    return isFile(path) ? absolute(path) : undefined;
  }
  const local = join(".kxm", "credentials.json");
  if (existsSync(local) || existsSync(join(".kxm", "agents"))) {
    return isFile(local) ? absolute(local) : undefined;
  }
  const base = nonEmpty(env.XDG_CONFIG_HOME) ?? join(homedir(), ".config");
  const profile = join(base, "kxm", "credentials.json");
  if (!isFile(profile)) {
    return undefined;
  }
  const given = nonEmpty(address) ?? nonEmpty(env.KXM_ADDR);
  if (given !== undefined) {
    const saved = readCredentials(profile).address;
    const theirs = typeof saved === "string" && saved ? saved : DEFAULT_ADDRESS;
    if (theirs.trim() !== given.trim()) {
      return undefined; // the profile belongs to another hub: neither its tokens nor its address apply
    }
  }
  return absolute(profile);
}

/**
 * Resolves every setting as the Python client does: an option, else its `KXM_*` variable, else the
 * credentials file `credentialsFileFor` picks, else the default.
 *
 * - address: option, `KXM_ADDR`, the file's `address`, `127.0.0.1:7331`;
 * - token: option, `KXM_TOKEN` (`KXM_ADMIN_TOKEN` with `admin`), the file's
 *   `projects[<project or "default">]` (`admin_token` with `admin`);
 * - project `KXM_PROJECT`; agent `KXM_AGENT_ID`, `KXM_AGENT_KEY`; tool-policy tokens
 *   `KXM_ATTEMPT_TOKEN`, `KXM_SESSION_TOKEN`; TLS `KXM_TLS_CA`, `KXM_TLS_CERT`, `KXM_TLS_KEY`.
 *
 * A missing token is not an error here. Throws an Error when the address names several hubs (not
 * supported by this client) or a scheme other than http/https, or when only one of the client
 * certificate and its key is given.
 */
export function resolveConfig(options: ConfigOptions = {}, env: Environment = process.env): ResolvedConfig {
  const credentialsFile = credentialsFileFor(options.address, env);
  const saved = readCredentials(credentialsFile);
  const project = nonEmpty(options.project) ?? nonEmpty(env.KXM_PROJECT);
  const variable = options.admin ? "KXM_ADMIN_TOKEN" : "KXM_TOKEN";
  let token: string | undefined = options.token;
  let tokenSource: string | undefined = token !== undefined ? "option" : undefined;
  if (token === undefined && nonEmpty(env[variable]) !== undefined) {
    token = env[variable];
    tokenSource = variable;
  }
  if (token === undefined && credentialsFile !== undefined) {
    const tokens = saved.projects;
    const found = options.admin
      ? saved.admin_token
      : typeof tokens === "object" && tokens !== null
        ? (tokens as Record<string, unknown>)[project ?? "default"]
        : undefined;
    if (typeof found === "string") {
      token = found;
      tokenSource = credentialsFile;
    }
  }

  let address: string;
  let addressSource: string;
  if (nonEmpty(options.address) !== undefined) {
    [address, addressSource] = [options.address!, "the address option"];
  } else if (nonEmpty(env.KXM_ADDR) !== undefined) {
    [address, addressSource] = [env.KXM_ADDR!, "KXM_ADDR"];
  } else if (typeof saved.address === "string" && saved.address) {
    [address, addressSource] = [saved.address, `the address in ${credentialsFile}`];
  } else {
    [address, addressSource] = [DEFAULT_ADDRESS, "the default"];
  }
  address = address.trim();
  if (address.includes(",")) {
    throw new Error(
      `${addressSource}: several hub addresses (${address}) are not supported by the TypeScript client; give one`,
    );
  }
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(address)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== "http" && scheme !== "https") {
    throw new Error(`${addressSource}: ${address}: only host:port, http:// or https:// addresses are supported`);
  }

  const tlsCa = nonEmpty(options.tlsCa) ?? nonEmpty(env.KXM_TLS_CA);
  const tlsCert = nonEmpty(options.tlsCert) ?? nonEmpty(env.KXM_TLS_CERT);
  const tlsKey = nonEmpty(options.tlsKey) ?? nonEmpty(env.KXM_TLS_KEY);
  if ((tlsCert === undefined) !== (tlsKey === undefined)) {
    throw new Error(
      "the client certificate and its key (tlsCert and tlsKey, KXM_TLS_CERT and KXM_TLS_KEY) go together",
    );
  }
  return hideSecrets({
    address,
    token,
    tokenSource,
    project,
    agentId: nonEmpty(options.agentId) ?? nonEmpty(env.KXM_AGENT_ID),
    agentKey: nonEmpty(options.agentKey) ?? nonEmpty(env.KXM_AGENT_KEY),
    attemptToken: nonEmpty(options.attemptToken) ?? nonEmpty(env.KXM_ATTEMPT_TOKEN),
    sessionToken: nonEmpty(options.sessionToken) ?? nonEmpty(env.KXM_SESSION_TOKEN),
    tls: options.tls === true || scheme === "https" || tlsCa !== undefined || tlsCert !== undefined,
    tlsCa,
    tlsCert,
    tlsKey,
    credentialsFile,
  });
}
