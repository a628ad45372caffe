import { useEffect, useId, useRef, type ReactNode } from 'react';
import { useLocation } from 'react-router-dom';

import { Alert } from '@/components/ui/alert';
import { ComingSoon } from '@/components/ui/coming-soon';

import { ACCOUNT_COPY as M } from '../messages';
import { accountNoticeOf, ACCOUNT_MENU, type MenuIndex } from '../stores/account-menu';

import { AccountMenu } from './account-menu';
import { BalanceCard } from './balance-card';

import './account-home.css';

type AccountHomeProps = {
  name: string | null;
  hasMissions: boolean;
  /** The section shown, by the spec's index; the app derives it from the URL. */
  selectedIndex: MenuIndex;
  onLogout: () => void;
  isLoggingOut?: boolean;
  /**
   * The sections of other areas by menu index, composed by the app (Mis Datos, Mis Movimientos,
   * Términos y Condiciones, Misiones); an index without one shows a coming-soon panel.
   */
  sections?: Partial<Record<number, ReactNode>>;
  /**
   * Shown below the balance in Mi Cuenta (the campaign banners, the simulator): the greeting and
   * the balance come first, so they are the first thing on a phone's screen.
   */
  homeBelow?: ReactNode;
};

/** /mi-club/*: greeting, account menu and the selected section. */
export function AccountHome({
  name,
  hasMissions,
  selectedIndex,
  onLogout,
  isLoggingOut,
  sections = {},
  homeBelow,
}: AccountHomeProps) {
  const notice = accountNoticeOf(useLocation().state);
  const noticeRef = useRef<HTMLDivElement>(null);
  const panelId = useId();
  const selected = ACCOUNT_MENU.find((item) => item.index === selectedIndex) ?? ACCOUNT_MENU[0];

  useEffect(() => {
    // The section the member was in is gone: the notice is where they continue.
    if (notice) noticeRef.current?.focus();
  }, [notice]);

  let section: ReactNode;
  if (selectedIndex === 0) {
    section = (
      <div className="account-home__home">
        <BalanceCard />
        {homeBelow ? <div className="account-home__below">{homeBelow}</div> : null}
      </div>
    );
  } else section = sections[selectedIndex] ?? <ComingSoon title={selected?.label ?? ''} headingLevel={2} />;

  return (
    <div className="container account-home">
      <h1 className="account-home__greeting">{M.greeting(name ?? '')}</h1>
      <div className="account-home__layout">
        <AccountMenu
          hasMissions={hasMissions}
          selectedIndex={selectedIndex}
          onLogout={onLogout}
          isLoggingOut={isLoggingOut}
        />
        <div
          className="account-home__panel"
          id={panelId}
          // After moving between sections, focus goes to the section's own heading, not the
          // greeting (app/route-focus.ts looks for this mark).
          data-route-heading-scope={selectedIndex === 0 ? undefined : ''}
        >
          {notice ? (
            <div className="account-home__notice" ref={noticeRef} tabIndex={-1}>
              <Alert tone="success">{notice}</Alert>
            </div>
          ) : null}
          {section}
        </div>
      </div>
    </div>
  );
}
