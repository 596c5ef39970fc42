/**
 * The configuration a running server uses, and the one place that changes it: the settings page
 * saves to $TILTH_HOME/config.json through `save`, which checks the whole result first, writes
 * the file atomically with mode 0600 (it may hold API keys), and swaps in the reloaded config.
 * Everything that reads the config reads `current` at the moment it needs it, so new work
 * follows a save without a restart. Flags, the environment and .env still win over the file.
 */
import type { ConfigUpdate } from '../../shared/api.ts';
import { AppError } from '../errors/app-error.ts';
import {
  CONFIG_KEYS,
  ConfigError,
  checkValue,
  loadConfig,
  readConfigFile,
  type Config,
  type ConfigInputs,
  type ConfigKey,
  type FieldProblems,
} from './config.ts';
import { Tree } from '../fs/tree.ts';

/** A save that would leave the configuration invalid; nothing was written. */
export class ConfigUpdateError extends AppError {
  constructor(
    readonly problems: string[],
    fields: FieldProblems,
  ) {
    super('invalid_config', `Not saved: ${problems.join('; ')}`, { fields });
  }
}

export class LiveConfig {
  #current: Config;

  /** `inputs` are what the config was loaded from (flags, env, home); saves reload with them. */
  constructor(
    private readonly inputs: ConfigInputs,
    initial?: Config,
  ) {
    this.#current = initial ?? loadConfig(inputs);
  }

  get current(): Config {
    return this.#current;
  }

  /** Applies `update` to config.json and returns the new config; throws ConfigUpdateError, writing nothing, when it does not hold together. */
  save(update: ConfigUpdate): Config {
    const { configFile, home } = this.#current;
    const fileProblems: string[] = [];
    const file = readConfigFile(configFile, fileProblems);
    if (fileProblems.length > 0) {
      throw new AppError('config_file_invalid', `${fileProblems.join('; ')}. Fix or delete that file, then save again.`);
    }

    const problems: string[] = [];
    const fields: FieldProblems = {};
    for (const [key, change] of Object.entries(update) as [ConfigKey, ConfigUpdate[keyof ConfigUpdate]][]) {
      if (change === undefined) continue;
      if (typeof change === 'object' && change !== null) {
        if ('clear' in change) delete file[key];
        else file[key] = change.set.trim();
        continue;
      }
      const raw = change === null ? '' : String(change).trim();
      if (raw === '') {
        delete file[key];
        continue;
      }
      const problem = checkValue(key, raw);
      if (problem !== null) {
        problems.push(`${key} ${problem}`);
        fields[key] = problem;
      } else file[key] = raw;
    }
    if (problems.length > 0) throw new ConfigUpdateError(problems, fields);

    // The whole configuration must still load (a role set only partly is refused at startup, so
    // it is refused here too) before anything reaches the disk.
    let next: Config;
    try {
      next = loadConfig({ ...this.inputs, home, fileValues: file });
    } catch (err) {
      if (err instanceof ConfigError) throw new ConfigUpdateError(err.problems, err.fields);
      throw err;
    }

    const ordered: Record<string, string> = {};
    for (const key of CONFIG_KEYS) if (file[key] !== undefined) ordered[key] = file[key];
    Tree.ensure(home, 0o700).writeJsonAtomic(configFile, ordered, { mode: 0o600 });
    this.#current = next;
    return next;
  }
}
