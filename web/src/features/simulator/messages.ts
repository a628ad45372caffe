/** What a member reads in the purchase-accumulation simulator. */
export const SIMULATOR_COPY = {
  failed: 'No pudimos calcular tu acumulación. Intenta de nuevo más tarde.',
  title: 'Simulador de acumulación',
  lead: 'Calcula cuánto acumularías en Mi Club con tu próxima compra.',
  weekDayLabel: 'Día de la compra',
  chooseDay: 'Elige un día',
  amountsLegend: '¿Cuánto gastarías en cada categoría? (en pesos)',
  payWithCard: 'Pago con Tarjeta Lider BCI',
  calculate: 'Calcular',
  /** Before the pesos the purchase would earn: "Acumularías $340". */
  wouldEarn: 'Acumularías',
  detailCaption: 'Detalle por categoría',
  category: 'Categoría',
  amount: 'Monto',
  rule: 'Regla',
  earned: 'Acumulas',
  /** The bank-card discount, apart from the pesos earned: "$600 menos en caja: Lunes 6% …". */
  discountLine: (pesos: string, description: string) => `Descuento en caja: ${pesos} menos (${description}).`,
  discountNote: 'Es un descuento en el precio, no se suma a los pesos que acumulas.',
  estimateNote: 'Es una estimación: el saldo se acumula al confirmarse tu compra.',
  meat: 'Carnes',
  fruitsAndVegetables: 'Frutas y verduras',
  cleaning: 'Limpieza',
  drinks: 'Bebidas',
  other: 'Otros productos',
} as const;

/** The checks' messages, under the field they belong to. */
export const SIMULATOR_MESSAGES = {
  weekDay: 'Elige un día de la semana.',
  negative: 'El monto no puede ser negativo.',
  notWhole: 'Ingresa el monto en pesos, sin decimales.',
  tooLarge: 'El monto máximo por categoría es $10.000.000.',
  allZero: 'Ingresa al menos un monto.',
} as const;
