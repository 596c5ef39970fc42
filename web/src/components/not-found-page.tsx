import { Link } from '../router.tsx';
import { paths } from '../paths.ts';

export function NotFoundPage({ path }: { path: string }) {
  return (
    <section className="page" data-testid="not-found">
      <h1>Nothing here</h1>
      <p>
        There is no page at <code>{path}</code>. Session addresses look like <code>/sessions/20260525-103149-3800ea</code>.
      </p>
      <p>
        <Link to={paths.sessions}>Go to the sessions list</Link>
      </p>
    </section>
  );
}
