import type { ReactNode } from 'react';
import './full-page-message.css';

/** The centred card used when the app cannot show anything else (signed out, server down). */
export function FullPageMessage(props: { testId: string; title: string; children: ReactNode; reason?: string }) {
  return (
    <main className="full-page" data-testid={props.testId} data-reason={props.reason}>
      <div className="full-page-card">
        <div className="brand brand-large">Tilth</div>
        <h1>{props.title}</h1>
        {props.children}
      </div>
    </main>
  );
}
