/**
 * The mission icon of each product category (spec section 3): ids 1-57, 16 is not used. The
 * spec names a few (1 mmbb, 2 oils, 10 beef, 34 liquors, 57 clothing); the rest follow the
 * supermarket's aisles. Files live in public/images/misiones/; any other id gets the default logo.
 */

export const MISSION_ICON_NAMES: Readonly<Record<number, string>> = {
  1: 'mmbb',
  2: 'oils',
  3: 'rice',
  4: 'pasta',
  5: 'flour',
  6: 'sugar',
  7: 'coffee',
  8: 'tea',
  9: 'cereals',
  10: 'beef',
  11: 'pork',
  12: 'poultry',
  13: 'fish',
  14: 'seafood',
  15: 'deli',
  17: 'cheese',
  18: 'milk',
  19: 'yogurt',
  20: 'eggs',
  21: 'bread',
  22: 'pastry',
  23: 'frozen',
  24: 'ice-cream',
  25: 'fruits',
  26: 'vegetables',
  27: 'canned',
  28: 'sauces',
  29: 'snacks',
  30: 'sweets',
  31: 'chocolates',
  32: 'soft-drinks',
  33: 'juices',
  34: 'liquors',
  35: 'wines',
  36: 'beers',
  37: 'water',
  38: 'cleaning',
  39: 'laundry',
  40: 'paper',
  41: 'personal-care',
  42: 'hair-care',
  43: 'oral-care',
  44: 'pharmacy',
  45: 'diapers',
  46: 'pets',
  47: 'home',
  48: 'kitchenware',
  49: 'electronics',
  50: 'appliances',
  51: 'toys',
  52: 'stationery',
  53: 'garden',
  54: 'hardware',
  55: 'sports',
  56: 'shoes',
  57: 'clothing',
};

export const DEFAULT_MISSION_ICON = '/images/misiones/default-mission.svg';

/** The icon's URL for a category id; the default mission logo for an unknown one. */
export function missionIconUrl(categoryId: number): string {
  const name = MISSION_ICON_NAMES[categoryId];
  return name ? `/images/misiones/${name}.svg` : DEFAULT_MISSION_ICON;
}
