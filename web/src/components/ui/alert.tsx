import type { ReactNode } from 'react';

import { SmartLink } from './smart-link';

import './alert.css';

type AlertProps = {
  tone?: 'error' | 'success' | 'info';
  children: ReactNode;
  action?: { url: string; urlName: string };
};

/**
 * A message that screen readers announce when it appears: `alert` for errors (assertive),
 * `status` for the rest (polite).
 */
export function Alert({ tone = 'error', children, action }: AlertProps) {
  return (
    <div className={`alert alert--${tone}`} role={tone === 'error' ? 'alert' : 'status'}>
      <p className="alert__text">{children}</p>
      {action ? (
        <SmartLink className="alert__action" href={action.url}>
          {action.urlName}
        </SmartLink>
      ) : null}
    </div>
  );
}
