import type { AnchorHTMLAttributes } from 'react';
import { Link } from 'react-router-dom';

import { isPortalPath } from '@/lib/portal-path';

type SmartLinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> & { href: string };

/** Client-side navigation for paths of this site, a plain anchor for other origins. */
export function SmartLink({ href, children, ...rest }: SmartLinkProps) {
  if (isPortalPath(href)) {
    return (
      <Link to={href} {...rest}>
        {children}
      </Link>
    );
  }
  return (
    <a href={href} {...rest}>
      {children}
    </a>
  );
}
