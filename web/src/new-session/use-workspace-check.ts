import { useQuery } from '@tanstack/react-query';
import { workspaceCheckQuery } from '../api/queries.ts';
import { useDebouncedValue } from '../use-debounced-value.ts';
import type { WorkspaceCheckState } from './workspace-check-view.tsx';

/** The server's check of a workspace path, asked once the path has stopped changing. */
export function useWorkspaceCheck(path: string): WorkspaceCheckState {
  const settledPath = useDebouncedValue(path, 300);
  const check = useQuery({ ...workspaceCheckQuery(settledPath), enabled: settledPath !== '' });
  return path === ''
    ? { state: 'idle' }
    : path !== settledPath || check.isPending
      ? { state: 'checking' }
      : check.isError
        ? { state: 'error', message: check.error.message }
        : { state: 'done', check: check.data };
}
