// The shape of ReportData (report-data.ts) as a JSON Schema, so renderReport
// refuses malformed data with the field path and value instead of
// failing somewhere inside the HTML it writes.

const count = { type: 'number', minimum: 0 } as const;
const text = { type: 'string' } as const;
const bytesList = { type: 'array', items: { type: 'number' } } as const;
const series = {
  type: 'object', required: ['name', 'liveBytes'],
  properties: { name: text, liveBytes: bytesList, steps: { type: 'array', items: text }, peakBytes: count },
} as const;
const amount = { type: 'object', required: ['name', 'bytes'], properties: { name: text, bytes: { type: 'number' } } } as const;

/** JSON Schema of {@link ReportData}. @internal */
export const REPORT_DATA_SCHEMA = {
  $id: 'https://tensorplan.dev/schemas/report-data.schema.json',
  type: 'object',
  required: ['title', 'generatedBy', 'steps', 'liveBytes', 'baselines', 'peakBytes', 'peakStep', 'lowerBoundBytes', 'arenaBytes', 'storages', 'topAtPeak'],
  properties: {
    title: text,
    generatedBy: text,
    steps: { type: 'array', items: text },
    liveBytes: bytesList,
    baselines: { type: 'array', items: series },
    peakBytes: count,
    peakStep: { type: 'integer', minimum: 0 },
    lowerBoundBytes: count,
    arenaBytes: count,
    storages: {
      type: 'array',
      items: {
        type: 'object', required: ['name', 'offset', 'bytes', 'birth', 'death', 'producer', 'lastReader'],
        properties: {
          name: text, offset: count, bytes: count, birth: count, death: count, producer: text, lastReader: text,
          category: text, group: text, why: text, tensors: count,
        },
      },
    },
    topAtPeak: {
      type: 'array',
      items: { type: 'object', required: ['name', 'bytes', 'producer', 'lastReader'], properties: { name: text, bytes: count, producer: text, lastReader: text } },
    },
    persistentBytes: count,
    persistent: { type: 'array', items: amount },
    categories: { type: 'array', items: series },
    groupings: { type: 'array', items: { type: 'object', required: ['by', 'series'], properties: { by: text, series: { type: 'array', items: series } } } },
    budget: {
      type: 'object', required: ['budgetBytes', 'fits', 'headroomBytes'],
      properties: { budgetBytes: count, fits: { type: 'boolean' }, headroomBytes: { type: 'number' } },
    },
    unmodelled: { type: 'array', items: text },
    alternatives: {
      type: 'array',
      items: {
        type: 'object', required: ['label', 'peakBytes', 'persistentBytes', 'totalBytes', 'deltaPeakBytes', 'deltaTotalBytes', 'roles', 'explanation'],
        properties: {
          label: text, peakBytes: count, persistentBytes: count, totalBytes: count, deltaPeakBytes: { type: 'number' },
          deltaTotalBytes: { type: 'number' }, roles: { type: 'array', items: amount }, explanation: text,
        },
      },
    },
  },
} as const;
