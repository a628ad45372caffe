import { Link } from 'react-router-dom';

import { trackClick } from '@/lib/analytics';

import { ACCOUNT_COPY as M } from '../messages';
import { visibleMenuItems } from '../stores/account-menu';

import './account-menu.css';

type AccountMenuProps = {
  hasMissions: boolean;
  selectedIndex: number;
  onLogout: () => void;
  isLoggingOut?: boolean;
};

/**
 * The account menu in the spec's order; a fixed bottom bar on small screens. Each entry is a link
 * to its section's address (open in a new tab, copy, Back and Forward all work); the selected one
 * carries `aria-current="page"`.
 */
export function AccountMenu({ hasMissions, selectedIndex, onLogout, isLoggingOut }: AccountMenuProps) {
  return (
    <nav className="account-menu" aria-label={M.menuLabel}>
      <ul className="account-menu__list">
        {visibleMenuItems(hasMissions).map((item) => {
          const selected = item.index === selectedIndex;
          return (
            <li key={item.index}>
              <Link
                to={item.path}
                className={`account-menu__item${selected ? ' account-menu__item--selected' : ''}`}
                aria-current={selected ? 'page' : undefined}
                data-menu-index={item.index}
                onClick={() => trackClick(`menu_${item.index}`, 'mi_club')}
              >
                {item.label}
              </Link>
            </li>
          );
        })}
        <li>
          <button
            type="button"
            className="account-menu__item account-menu__item--logout"
            onClick={() => {
              trackClick('cerrar_sesion', 'mi_club');
              onLogout();
            }}
            disabled={isLoggingOut}
          >
            {M.logOut}
          </button>
        </li>
      </ul>
    </nav>
  );
}
