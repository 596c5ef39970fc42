import { Suspense } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { chunkPage } from './route-pages.tsx';

describe('chunkPage', () => {
  it('shows the fallback while its chunk loads, fetches it once, and renders without suspending once preloaded', async () => {
    let loads = 0;
    const { Page, preload } = chunkPage(async () => {
      loads += 1;
      return ({ name }: { name: string }) => <p>{name}</p>;
    });
    const render = () =>
      renderToStaticMarkup(
        <Suspense fallback={<i>loading</i>}>
          <Page name="T-001" />
        </Suspense>,
      );
    expect(render()).toContain('<i>loading</i>');
    await preload();
    expect(render()).toBe('<p>T-001</p>');
    expect(loads).toBe(1);
  });
});
