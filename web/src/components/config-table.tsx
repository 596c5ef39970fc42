import type { ConfigResponse, ConfigSource } from '../../../shared/api.ts';

const SOURCE_LABELS: Record<ConfigSource, string> = {
  flag: 'flag',
  env: 'env',
  dotenv: '.env',
  file: 'file',
  default: 'default',
};

export function ConfigTable({ entries }: { entries: ConfigResponse['entries'] }) {
  return (
    <div className="table-wrap">
      <table className="table config-table" data-testid="config-table">
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Value</th>
            <th scope="col">Source</th>
            <th scope="col">Description</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.key} data-testid="config-row" data-key={entry.key} data-source={entry.source}>
              <td className="mono">{entry.key}</td>
              <td className="mono" data-testid="config-value">
                {entry.value === null ? <span className="muted">not set</span> : entry.value}
                {entry.secret && entry.value !== null && <span className="muted small"> (masked)</span>}
              </td>
              <td>
                <span className={`badge source-${entry.source}`} data-testid="config-source">
                  {SOURCE_LABELS[entry.source]}
                </span>
              </td>
              <td className="description">{entry.description}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
