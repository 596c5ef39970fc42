import { describe, expect, it } from 'vitest';
import { backTarget, matchRoute, paths } from './paths.ts';

describe('matchRoute', () => {
  it('maps the pages', () => {
    expect(matchRoute('/new')).toEqual({ name: 'new-session' });
    expect(matchRoute(paths.newSession)).toEqual({ name: 'new-session' });
    expect(matchRoute('/')).toEqual({ name: 'sessions' });
    expect(matchRoute('/sessions')).toEqual({ name: 'sessions' });
    expect(matchRoute('/settings/')).toEqual({ name: 'settings' });
    expect(matchRoute('/sessions/20260525-103149-3800ea')).toEqual({ name: 'session', id: '20260525-103149-3800ea' });
  });

  it('treats anything else, including malformed session ids, as not found', () => {
    expect(matchRoute('/nope')).toEqual({ name: 'not-found', path: '/nope' });
    expect(matchRoute('/sessions/..%2F..%2Fetc')).toEqual({ name: 'not-found', path: '/sessions/..%2F..%2Fetc' });
    expect(matchRoute('/sessions/%E0%A4%A')).toMatchObject({ name: 'not-found' });
    expect(matchRoute('/sessions/20260525-103149-3800ea/extra')).toMatchObject({ name: 'not-found' });
    expect(matchRoute('/sessions/20260525-103149-3800ea/tasks/../../x')).toMatchObject({ name: 'not-found' });
    expect(matchRoute('/sessions/20260525-103149-3800ea/tasks/T-1')).toMatchObject({ name: 'not-found' });
    expect(matchRoute('/sessions/20260525-103149-3800ea/tasks/T-001/diff')).toMatchObject({ name: 'not-found' });
    expect(matchRoute('/sessions/nope/review')).toMatchObject({ name: 'not-found' });
  });

  it('maps the review pages of a session and of one task', () => {
    expect(matchRoute('/sessions/20260525-103149-3800ea/review')).toEqual({ name: 'session-review', id: '20260525-103149-3800ea' });
    expect(matchRoute('/sessions/20260525-103149-3800ea/tasks/T-001/')).toEqual({
      name: 'task-review',
      id: '20260525-103149-3800ea',
      taskId: 'T-001',
    });
  });

  it('round-trips the paths it builds', () => {
    expect(matchRoute(paths.session('20260525-103149-3800ea'))).toEqual({ name: 'session', id: '20260525-103149-3800ea' });
    expect(matchRoute(paths.settings)).toEqual({ name: 'settings' });
    expect(matchRoute(paths.sessionReview('20260525-103149-3800ea'))).toEqual({ name: 'session-review', id: '20260525-103149-3800ea' });
    expect(matchRoute(paths.taskReview('20260525-103149-3800ea', 'T-012'))).toEqual({
      name: 'task-review',
      id: '20260525-103149-3800ea',
      taskId: 'T-012',
    });
  });
});

describe('backTarget', () => {
  it('reads the page a settings link came from', () => {
    const link = paths.settingsThenBack(paths.session('20260525-103149-3800ea'));
    expect(link).toBe('/settings?back=%2Fsessions%2F20260525-103149-3800ea');
    expect(matchRoute(link.split('?')[0]!)).toEqual({ name: 'settings' });
    expect(backTarget(`?${link.split('?')[1]}`)).toEqual({ to: '/sessions/20260525-103149-3800ea', route: { name: 'session', id: '20260525-103149-3800ea' } });
    expect(backTarget(`?${paths.settingsThenBack(paths.newSession).split('?')[1]}`)?.route).toEqual({ name: 'new-session' });
  });

  it('offers no way back to another origin, an unknown page or settings itself', () => {
    for (const back of ['//evil.example/x', 'https://evil.example', '/\\evil.example', 'javascript:alert(1)', '/nope', '/settings', '']) {
      expect(backTarget(`?${new URLSearchParams({ back }).toString()}`), back).toBeNull();
    }
    expect(backTarget('')).toBeNull();
  });
});
