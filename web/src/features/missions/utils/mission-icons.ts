/**
 * The mission icon of each product category (spec section 3): ids 1-57, 16 is not used. The
 * spec names a few (1 mmbb, 2 oils, 10 beef, 34 liquors, 57 clothing); the rest follow the
 * supermarket's aisles. The pictograms are Tabler Icons (MIT), each imported from its own module
 * (typed by tabler-icons.d.ts): only these reach the lazy missions chunk, and tests and the dev
 * server load 57 small files instead of the package index's ~6,000. Any other id gets the default
 * mission logo.
 * The Spanish names the icons are announced with live in messages.ts (MISSION_CATEGORY_NAMES).
 */
import type { TablerIcon } from '@tabler/icons-react';
import IconAnchor from '@tabler/icons-react/dist/esm/icons/IconAnchor.mjs';
import IconApple from '@tabler/icons-react/dist/esm/icons/IconApple.mjs';
import IconBabyCarriage from '@tabler/icons-react/dist/esm/icons/IconBabyCarriage.mjs';
import IconBallFootball from '@tabler/icons-react/dist/esm/icons/IconBallFootball.mjs';
import IconBeer from '@tabler/icons-react/dist/esm/icons/IconBeer.mjs';
import IconBottle from '@tabler/icons-react/dist/esm/icons/IconBottle.mjs';
import IconBowlChopsticks from '@tabler/icons-react/dist/esm/icons/IconBowlChopsticks.mjs';
import IconBowlSpoon from '@tabler/icons-react/dist/esm/icons/IconBowlSpoon.mjs';
import IconBread from '@tabler/icons-react/dist/esm/icons/IconBread.mjs';
import IconCake from '@tabler/icons-react/dist/esm/icons/IconCake.mjs';
import IconCanary from '@tabler/icons-react/dist/esm/icons/IconCanary.mjs';
import IconCandy from '@tabler/icons-react/dist/esm/icons/IconCandy.mjs';
import IconCarrot from '@tabler/icons-react/dist/esm/icons/IconCarrot.mjs';
import IconCheese from '@tabler/icons-react/dist/esm/icons/IconCheese.mjs';
import IconChocolate from '@tabler/icons-react/dist/esm/icons/IconChocolate.mjs';
import IconCoffee from '@tabler/icons-react/dist/esm/icons/IconCoffee.mjs';
import IconCooker from '@tabler/icons-react/dist/esm/icons/IconCooker.mjs';
import IconCookie from '@tabler/icons-react/dist/esm/icons/IconCookie.mjs';
import IconCube from '@tabler/icons-react/dist/esm/icons/IconCube.mjs';
import IconCup from '@tabler/icons-react/dist/esm/icons/IconCup.mjs';
import IconCylinder from '@tabler/icons-react/dist/esm/icons/IconCylinder.mjs';
import IconDental from '@tabler/icons-react/dist/esm/icons/IconDental.mjs';
import IconDeviceTv from '@tabler/icons-react/dist/esm/icons/IconDeviceTv.mjs';
import IconDiaper from '@tabler/icons-react/dist/esm/icons/IconDiaper.mjs';
import IconDroplet from '@tabler/icons-react/dist/esm/icons/IconDroplet.mjs';
import IconDroplets from '@tabler/icons-react/dist/esm/icons/IconDroplets.mjs';
import IconEggs from '@tabler/icons-react/dist/esm/icons/IconEggs.mjs';
import IconFish from '@tabler/icons-react/dist/esm/icons/IconFish.mjs';
import IconFridge from '@tabler/icons-react/dist/esm/icons/IconFridge.mjs';
import IconGlassCocktail from '@tabler/icons-react/dist/esm/icons/IconGlassCocktail.mjs';
import IconGlassFull from '@tabler/icons-react/dist/esm/icons/IconGlassFull.mjs';
import IconHammer from '@tabler/icons-react/dist/esm/icons/IconHammer.mjs';
import IconHorseToy from '@tabler/icons-react/dist/esm/icons/IconHorseToy.mjs';
import IconIceCream from '@tabler/icons-react/dist/esm/icons/IconIceCream.mjs';
import IconLemon from '@tabler/icons-react/dist/esm/icons/IconLemon.mjs';
import IconMeat from '@tabler/icons-react/dist/esm/icons/IconMeat.mjs';
import IconMilk from '@tabler/icons-react/dist/esm/icons/IconMilk.mjs';
import IconPaw from '@tabler/icons-react/dist/esm/icons/IconPaw.mjs';
import IconPencil from '@tabler/icons-react/dist/esm/icons/IconPencil.mjs';
import IconPepper from '@tabler/icons-react/dist/esm/icons/IconPepper.mjs';
import IconPerfume from '@tabler/icons-react/dist/esm/icons/IconPerfume.mjs';
import IconPig from '@tabler/icons-react/dist/esm/icons/IconPig.mjs';
import IconPill from '@tabler/icons-react/dist/esm/icons/IconPill.mjs';
import IconPlant from '@tabler/icons-react/dist/esm/icons/IconPlant.mjs';
import IconSausage from '@tabler/icons-react/dist/esm/icons/IconSausage.mjs';
import IconScissors from '@tabler/icons-react/dist/esm/icons/IconScissors.mjs';
import IconShirt from '@tabler/icons-react/dist/esm/icons/IconShirt.mjs';
import IconShoe from '@tabler/icons-react/dist/esm/icons/IconShoe.mjs';
import IconSnowflake from '@tabler/icons-react/dist/esm/icons/IconSnowflake.mjs';
import IconSofa from '@tabler/icons-react/dist/esm/icons/IconSofa.mjs';
import IconSoup from '@tabler/icons-react/dist/esm/icons/IconSoup.mjs';
import IconSpray from '@tabler/icons-react/dist/esm/icons/IconSpray.mjs';
import IconTargetArrow from '@tabler/icons-react/dist/esm/icons/IconTargetArrow.mjs';
import IconTeapot from '@tabler/icons-react/dist/esm/icons/IconTeapot.mjs';
import IconToiletPaper from '@tabler/icons-react/dist/esm/icons/IconToiletPaper.mjs';
import IconWashMachine from '@tabler/icons-react/dist/esm/icons/IconWashMachine.mjs';
import IconWheat from '@tabler/icons-react/dist/esm/icons/IconWheat.mjs';

import { MISSION_CATEGORY_NAMES, MISSIONS_COPY } from '../messages';

/** A category's pictogram and the spec's short key for it (the key names the icon in the DOM). */
export type MissionIconEntry = { readonly key: string; readonly Icon: TablerIcon };

export const MISSION_ICONS: Readonly<Record<number, MissionIconEntry>> = {
  1: { key: 'mmbb', Icon: IconBabyCarriage },
  2: { key: 'oils', Icon: IconDroplet },
  3: { key: 'rice', Icon: IconBowlChopsticks },
  4: { key: 'pasta', Icon: IconSoup },
  5: { key: 'flour', Icon: IconWheat },
  6: { key: 'sugar', Icon: IconCube },
  7: { key: 'coffee', Icon: IconCoffee },
  8: { key: 'tea', Icon: IconTeapot },
  9: { key: 'cereals', Icon: IconBowlSpoon },
  10: { key: 'beef', Icon: IconMeat },
  11: { key: 'pork', Icon: IconPig },
  12: { key: 'poultry', Icon: IconCanary },
  13: { key: 'fish', Icon: IconFish },
  14: { key: 'seafood', Icon: IconAnchor },
  15: { key: 'deli', Icon: IconSausage },
  17: { key: 'cheese', Icon: IconCheese },
  18: { key: 'milk', Icon: IconMilk },
  19: { key: 'yogurt', Icon: IconCup },
  20: { key: 'eggs', Icon: IconEggs },
  21: { key: 'bread', Icon: IconBread },
  22: { key: 'pastry', Icon: IconCake },
  23: { key: 'frozen', Icon: IconSnowflake },
  24: { key: 'ice-cream', Icon: IconIceCream },
  25: { key: 'fruits', Icon: IconApple },
  26: { key: 'vegetables', Icon: IconCarrot },
  27: { key: 'canned', Icon: IconCylinder },
  28: { key: 'sauces', Icon: IconPepper },
  29: { key: 'snacks', Icon: IconCookie },
  30: { key: 'sweets', Icon: IconCandy },
  31: { key: 'chocolates', Icon: IconChocolate },
  32: { key: 'soft-drinks', Icon: IconBottle },
  33: { key: 'juices', Icon: IconLemon },
  34: { key: 'liquors', Icon: IconGlassCocktail },
  35: { key: 'wines', Icon: IconGlassFull },
  36: { key: 'beers', Icon: IconBeer },
  37: { key: 'water', Icon: IconDroplets },
  38: { key: 'cleaning', Icon: IconSpray },
  39: { key: 'laundry', Icon: IconWashMachine },
  40: { key: 'paper', Icon: IconToiletPaper },
  41: { key: 'personal-care', Icon: IconPerfume },
  42: { key: 'hair-care', Icon: IconScissors },
  43: { key: 'oral-care', Icon: IconDental },
  44: { key: 'pharmacy', Icon: IconPill },
  45: { key: 'diapers', Icon: IconDiaper },
  46: { key: 'pets', Icon: IconPaw },
  47: { key: 'home', Icon: IconSofa },
  48: { key: 'kitchenware', Icon: IconCooker },
  49: { key: 'electronics', Icon: IconDeviceTv },
  50: { key: 'appliances', Icon: IconFridge },
  51: { key: 'toys', Icon: IconHorseToy },
  52: { key: 'stationery', Icon: IconPencil },
  53: { key: 'garden', Icon: IconPlant },
  54: { key: 'hardware', Icon: IconHammer },
  55: { key: 'sports', Icon: IconBallFootball },
  56: { key: 'shoes', Icon: IconShoe },
  57: { key: 'clothing', Icon: IconShirt },
};

/** The default mission logo: a target hit by an arrow, for 16 and any id outside 1-57. */
export const DEFAULT_MISSION_ICON: MissionIconEntry = { key: 'default-mission', Icon: IconTargetArrow };

/** What a category's icon is drawn with and announced as. */
export type MissionIcon = MissionIconEntry & { readonly name: string };

/** The icon of a category id; the default mission logo for an unknown one. */
export function missionIcon(categoryId: number): MissionIcon {
  const entry = Object.hasOwn(MISSION_ICONS, categoryId) ? MISSION_ICONS[categoryId] : undefined;
  const name = Object.hasOwn(MISSION_CATEGORY_NAMES, categoryId) ? MISSION_CATEGORY_NAMES[categoryId] : undefined;
  if (!entry || !name) return { ...DEFAULT_MISSION_ICON, name: MISSIONS_COPY.defaultIcon };
  return { ...entry, name };
}
