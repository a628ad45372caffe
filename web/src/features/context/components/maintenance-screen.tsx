import { Logo } from '@/components/ui/logo';

import { CONTEXT_COPY as M } from '../messages';
import '@/styles/brand.css';
import './maintenance-screen.css';

/** Replaces the whole portal while the context flag `portalEnabled` is false. */
export function MaintenanceScreen() {
  return (
    <main className="maintenance" id="contenido">
      <div className="maintenance__card">
        <Logo tone="on-light" variant="mark" height={64} />
        <p className="maintenance__text">{M.maintenanceText}</p>
        <h1 className="maintenance__title">{M.maintenanceTitle}</h1>
      </div>
    </main>
  );
}
