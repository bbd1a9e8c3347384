// speedscope's file format as a zod schema, transcribed from its published JSON schema
// (https://www.speedscope.app/file-format-schema.json, generated from speedscope's
// src/lib/file-format-spec.ts): what a download must parse with for speedscope.app to open it.
import { z } from 'zod';

const valueUnit = z.enum([
  'none',
  'nanoseconds',
  'microseconds',
  'milliseconds',
  'seconds',
  'bytes',
]);
const speedscopeShape = z.object({
  $schema: z.literal('https://www.speedscope.app/file-format-schema.json'),
  version: z.string().optional(),
  name: z.string().optional(),
  exporter: z.string().optional(),
  activeProfileIndex: z.number().optional(),
  shared: z.object({
    frames: z.array(
      z.object({
        name: z.string(),
        file: z.string().optional(),
        line: z.number().optional(),
        col: z.number().optional(),
      }),
    ),
  }),
  profiles: z.array(
    z.union([
      z.object({
        type: z.literal('sampled'),
        name: z.string(),
        unit: valueUnit,
        startValue: z.number(),
        endValue: z.number(),
        samples: z.array(z.array(z.number().int().nonnegative())),
        weights: z.array(z.number()),
      }),
      z.object({
        type: z.literal('evented'),
        name: z.string(),
        unit: valueUnit,
        startValue: z.number(),
        endValue: z.number(),
        events: z.array(
          z.object({ type: z.enum(['O', 'C']), at: z.number(), frame: z.number().int() }),
        ),
      }),
    ]),
  ),
});

/**
 * The shape, plus what speedscope's importer (src/import/speedscope.ts) takes for granted and the
 * JSON schema cannot say: every frame index names a frame of the shared table, and a sampled
 * profile has one weight per sample (it walks both together).
 */
export const speedscopeSchema = speedscopeShape.superRefine((file, ctx) => {
  const frames = file.shared.frames.length;
  file.profiles.forEach((profile, p) => {
    const indices =
      profile.type === 'sampled' ? profile.samples.flat() : profile.events.map((e) => e.frame);
    if (indices.some((i) => i >= frames))
      ctx.addIssue({
        code: 'custom',
        path: ['profiles', p],
        message: 'a frame index past the frame table',
      });
    if (profile.type === 'sampled' && profile.samples.length !== profile.weights.length)
      ctx.addIssue({
        code: 'custom',
        path: ['profiles', p, 'weights'],
        message: 'not one weight per sample',
      });
  });
});
