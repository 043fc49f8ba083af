/**
 * The parts of a Devin session that session facts need: its database row, and the steps of its
 * ATIF transcript (the Agent Trajectory Interchange Format, v1.7 as Devin writes it).
 *
 * A trajectory is one JSON document: `{schema_version, session_id, agent: {name, model_name},
 * steps: [...], final_metrics: {total_prompt_tokens, total_completion_tokens, total_cached_tokens}}`.
 * A step has `source` (`user`, `agent`, `system`), `timestamp`, `message`; an agent step is one model
 * response with `model_name`, `metrics: {prompt_tokens, completion_tokens, cached_tokens}` (the
 * cached tokens are part of the prompt) and `tool_calls: [{tool_call_id, function_name,
 * arguments}]`. How a call ended is not in the trajectory: Devin's database keeps it.
 */
import { arr, count, isoMs, type JsonObject, num, obj, str, text } from '../../model/json.js';

/** A prompt is kept to its first characters: it names the session, nothing more. */
export const MAX_PROMPT_CHARS = 4096;

/** Tool calls kept per step; a step with more is counted up to here. */
export const MAX_CALLS_PER_STEP = 512;

export interface DevinSession {
  id: string;
  cwd: string | null;
  model: string | null;
  title: string | null;
  createdMs: number | null;
  lastMs: number | null;
}

export interface DevinMetrics {
  /** The whole prompt, cached part included. */
  prompt: number;
  completion: number;
  cached: number;
  costUsd: number | null;
}

export interface DevinStep {
  id: string | null;
  source: string | null;
  ms: number | null;
  model: string | null;
  metrics: DevinMetrics | null;
  calls: [string | null, string][];
  text: string | null;
}

export interface DevinTrajectory {
  model: string | null;
  steps: DevinStep[];
  final: DevinMetrics | null;
}

/** Devin spells one model several ways (`swe-2-high`, `SWE-2 High`): one spelling for all. */
export function foldModel(name: string | null): string | null {
  if (name === null) return null;
  const m = name.trim().toLowerCase().replace(/\s+/g, '-');
  return m.length > 0 ? m : null;
}

/** Devin keeps times in seconds (a number, or an ISO string in some rows). */
function seconds(v: unknown): number | null {
  const n = num(v);
  if (n !== null) return n > 1e12 ? n : n * 1000;
  return isoMs(v);
}

export function sessionFrom(o: JsonObject): DevinSession | null {
  const id = text(o.id);
  if (id === null) return null;
  return {
    id,
    cwd: text(o.working_directory),
    model: foldModel(text(o.model)),
    title: text(o.title),
    createdMs: seconds(o.created_at),
    lastMs: seconds(o.last_activity_at),
  };
}

function metricsFrom(v: unknown, prefix = ''): DevinMetrics | null {
  const m = obj(v);
  if (!m) return null;
  const prompt = count(m[`${prefix}prompt_tokens`]);
  const completion = count(m[`${prefix}completion_tokens`]);
  if (prompt === null && completion === null) return null;
  return {
    prompt: prompt ?? 0,
    completion: completion ?? 0,
    cached: count(m[`${prefix}cached_tokens`]) ?? 0,
    costUsd: count(m[`${prefix}cost_usd`]),
  };
}

function words(v: unknown): string | null {
  if (typeof v === 'string') return v.length > 0 ? v.slice(0, MAX_PROMPT_CHARS) : null;
  let out = '';
  for (const p of arr(v) ?? []) {
    const t = typeof p === 'string' ? p : str(obj(p)?.text);
    if (t !== null) out += t;
    if (out.length >= MAX_PROMPT_CHARS) break;
  }
  return out.length > 0 ? out.slice(0, MAX_PROMPT_CHARS) : null;
}

export function stepFrom(o: JsonObject): DevinStep {
  const calls: [string | null, string][] = [];
  for (const c of arr(o.tool_calls) ?? []) {
    if (calls.length >= MAX_CALLS_PER_STEP) break;
    const call = obj(c);
    const name = call ? text(call.function_name) : null;
    if (call && name) calls.push([text(call.tool_call_id), name]);
  }
  const id = o.step_id;
  return {
    id: typeof id === 'string' ? id : typeof id === 'number' ? String(id) : null,
    source: str(o.source),
    ms: isoMs(o.timestamp),
    model: foldModel(text(o.model_name)),
    metrics: metricsFrom(o.metrics),
    calls,
    text: words(o.message),
  };
}

export function trajectoryFrom(o: JsonObject): DevinTrajectory {
  const steps: DevinStep[] = [];
  for (const s of arr(o.steps) ?? []) {
    const step = obj(s);
    if (step) steps.push(stepFrom(step));
  }
  return {
    model: foldModel(text(obj(o.agent)?.model_name)),
    steps,
    final: metricsFrom(o.final_metrics, 'total_'),
  };
}
