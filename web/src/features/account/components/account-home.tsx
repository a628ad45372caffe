import { useEffect, useId, useRef, type ReactNode } from 'react';

import { Alert } from '@/components/ui/alert';
import { ComingSoon } from '@/components/ui/coming-soon';

import { ACCOUNT_COPY as M } from '../messages';
import { ACCOUNT_MENU, useAccountNotice, useSelectedMenuIndex } from '../stores/account-menu';

import { AccountMenu } from './account-menu';
import { BalanceCard } from './balance-card';

import './account-home.css';

type AccountHomeProps = {
  name: string | null;
  hasMissions: boolean;
  onLogout: () => void;
  isLoggingOut?: boolean;
  /**
   * The sections of other areas by menu index, composed by the app (Mis Datos, Mis Movimientos,
   * Términos y Condiciones, Misiones); an index without one shows a coming-soon panel.
   */
  sections?: Partial<Record<number, ReactNode>>;
  /** Shown above the balance in Mi Cuenta (the campaign banners). */
  homeTop?: ReactNode;
  /** Shown below the balance in Mi Cuenta (the simulator). */
  homeBottom?: ReactNode;
};

/** /mi-club: greeting, account menu and the selected section. */
export function AccountHome({
  name,
  hasMissions,
  onLogout,
  isLoggingOut,
  sections = {},
  homeTop,
  homeBottom,
}: AccountHomeProps) {
  const selectedIndex = useSelectedMenuIndex(hasMissions);
  const notice = useAccountNotice();
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
      <>
        {homeTop}
        <BalanceCard />
        {homeBottom}
      </>
    );
  }
  else section = sections[selectedIndex] ?? <ComingSoon title={selected?.label ?? ''} headingLevel={2} />;

  return (
    <div className="container account-home">
      <h1 className="account-home__greeting">{M.greeting(name ?? '')}</h1>
      <div className="account-home__layout">
        <AccountMenu
          hasMissions={hasMissions}
          selectedIndex={selectedIndex}
          onLogout={onLogout}
          isLoggingOut={isLoggingOut}
          panelId={panelId}
        />
        <div className="account-home__panel" id={panelId}>
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
