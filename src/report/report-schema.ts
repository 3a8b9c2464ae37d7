// The shape of ReportData (report-data.ts) as a JSON Schema, so renderReport
// refuses malformed data with the field path and value (issue #14) instead of
// failing somewhere inside the HTML it writes.

const count = { type: 'number', minimum: 0 } as const;
const text = { type: 'string' } as const;
const bytesList = { type: 'array', items: { type: 'number' } } as const;

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
    baselines: { type: 'array', items: { type: 'object', required: ['name', 'liveBytes'], properties: { name: text, liveBytes: bytesList } } },
    peakBytes: count,
    peakStep: { type: 'integer', minimum: 0 },
    lowerBoundBytes: count,
    arenaBytes: count,
    storages: {
      type: 'array',
      items: {
        type: 'object', required: ['name', 'offset', 'bytes', 'birth', 'death', 'producer', 'lastReader'],
        properties: { name: text, offset: count, bytes: count, birth: count, death: count, producer: text, lastReader: text },
      },
    },
    topAtPeak: {
      type: 'array',
      items: { type: 'object', required: ['name', 'bytes', 'producer', 'lastReader'], properties: { name: text, bytes: count, producer: text, lastReader: text } },
    },
  },
} as const;
