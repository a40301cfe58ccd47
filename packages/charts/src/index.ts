export { barChart, type BarChartSpec, type BarSeries } from './bar-chart.js';
export { escapeXml, safeId } from './escape.js';
export { dataTable, formatNumber, renderFigure, svgFrame, type Chart, type ChartText } from './figure.js';
export { heatMap, type HeatMapSpec } from './heat-map.js';
export { lineChart, type LineChartSpec, type LineSeries } from './line-chart.js';
export { PALETTE, sequentialColor, textColorOn } from './palette.js';
export { linearScale, niceTicks } from './scale.js';
