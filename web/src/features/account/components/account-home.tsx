import { useId } from 'react';

import { ComingSoon } from '@/components/ui/coming-soon';

import { ACCOUNT_MENU, useSelectedMenuIndex } from '../stores/account-menu';

import { AccountMenu } from './account-menu';
import { BalanceCard } from './balance-card';

type AccountHomeProps = {
  name: string | null;
  hasMissions: boolean;
  onLogout: () => void;
  isLoggingOut?: boolean;
};

/** /mi-club: greeting, account menu and the selected section. */
export function AccountHome({ name, hasMissions, onLogout, isLoggingOut }: AccountHomeProps) {
  const selectedIndex = useSelectedMenuIndex(hasMissions);
  const panelId = useId();
  const selected = ACCOUNT_MENU.find((item) => item.index === selectedIndex) ?? ACCOUNT_MENU[0];
  return (
    <div className="container account-home">
      <h1 className="account-home__greeting">{name ? `Hola, ${name}` : 'Hola'}</h1>
      <div className="account-home__layout">
        <AccountMenu
          hasMissions={hasMissions}
          selectedIndex={selectedIndex}
          onLogout={onLogout}
          isLoggingOut={isLoggingOut}
          panelId={panelId}
        />
        <div className="account-home__panel" id={panelId}>
          {selectedIndex === 0 ? <BalanceCard /> : <ComingSoon title={selected?.label ?? ''} headingLevel={2} />}
        </div>
      </div>
    </div>
  );
}
