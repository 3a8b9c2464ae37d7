// The part of ECharts the report draws with, registered through ECharts' own
// tree-shakeable entry points (echarts/core + one module per chart, component
// and renderer), so the inlined library is about a third of echarts.min.js and
// ECharts itself is only a build-time dependency. rollup.report.config.mjs
// bundles this file into dist/echarts-report.min.js, a script that defines the
// global `echarts` the page script (render-report.ts, pageScript) calls.
// Keep the list in step with the options pageScript sets: a series type or
// component missing here is silently not drawn (test/package/report-bundle.test.ts
// checks each one in chromium).
import { BarChart, CustomChart, LineChart } from 'echarts/charts';
import {
  DataZoomInsideComponent,
  DataZoomSliderComponent,
  GridComponent,
  LegendComponent,
  MarkLineComponent,
  MarkPointComponent,
  TitleComponent,
  TooltipComponent,
} from 'echarts/components';
import { init, use, version } from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';

use([
  LineChart, CustomChart, BarChart,
  TitleComponent, TooltipComponent, LegendComponent, GridComponent, MarkPointComponent, MarkLineComponent,
  // Zoom and pan on both charts: the wheel and drag inside the plot, and a slider under it.
  DataZoomInsideComponent, DataZoomSliderComponent,
  CanvasRenderer,
]);

export { init, version };
