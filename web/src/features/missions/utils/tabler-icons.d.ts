/**
 * Types for Tabler's one-icon modules (the package types only its index): each default-exports
 * one icon component. A wrong name fails the build and the tests, which import every icon.
 */
declare module '@tabler/icons-react/dist/esm/icons/*.mjs' {
  import type { TablerIcon } from '@tabler/icons-react';

  const icon: TablerIcon;
  export default icon;
}
