// The design tokens and the global base (reset, typography, utilities); every component imports its
// own stylesheet. A build may link a shared chunk's stylesheet before these: no rule there contends with them.
import './styles/tokens.css';
import './styles/base.css';
import './styles/app-shell.css';

import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

import { App } from './app';
import { preloadRoute } from './app/router';
import { ensureUserIdCookie } from './lib/cookies';
import { restoreSession } from './lib/session';

// First load: the anonymous visitor id (spec section 1), then whatever session the cookies show.
ensureUserIdCookie();
restoreSession();
// The first route's chunks load while the portal context is being read.
preloadRoute(window.location.pathname);

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
