/**
 * `rate-limits` class: the burst onset with a fresh key, on messaging and on compute (the burst
 * is counted per area, docs/conventions.md). The flow is in _onset.ts; the run-wide header
 * invariants over every response of the run are judged by the reporter
 * (src/report/rate-invariants.ts).
 */
import { defineOnsetFlow } from './_onset.ts';

defineOnsetFlow('messaging');
defineOnsetFlow('compute');
