import type { ConfigResponse } from '../../../shared/api.ts';
import { SOURCE_NAMES } from './setting-field.tsx';
import { ScrollRegion } from '../components/scroll-region.tsx';

export function ConfigTable({ entries }: { entries: ConfigResponse['entries'] }) {
  return (
    <ScrollRegion className="table-wrap" label="Everything Tilth reads">
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
                {entry.overridden && entry.file_value !== null && (
                  <div className="muted small" data-testid="config-file-value">
                    config.json has {entry.file_value}, overridden
                  </div>
                )}
              </td>
              <td>
                <span className={`badge source-${entry.source}`} data-testid="config-source">
                  {SOURCE_NAMES[entry.source]}
                </span>
              </td>
              <td className="description">{entry.description}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
