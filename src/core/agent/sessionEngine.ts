// The one owner of a session's state: which request runs (with its cancel), which review waits, which leaf move is under way.
import type { ReviewAnswer, ReviewDecision } from './agentEvents';

/** What a session is doing now; the VS Code side shows it and asks, the engine decides what may happen. */
export type EngineState = 'idle' | 'running' | 'awaitingReview' | 'busy';

/**
 * A compaction proposal waiting for the person's decision: at most one per session, and its one owner. Regenerate
 * replaces `proposal` (and the id the panel shows); Apply applies exactly the proposal held under that id.
 */
export interface PendingReview<P> {
  id: string;
  proposal: P;
  /** Proposed by the agent loop (automatic) rather than asked for by the person. */
  auto: boolean;
  modelId: string;
  /** Set while a request waits for this decision (the loop applies the proposal the decision carries). */
  answer?: (decision: ReviewDecision<P>) => void;
}

/** The handle of a running request: its cancel signal, and `end` (always called, in a finally). */
export interface RunningRequest {
  readonly id: number;
  readonly signal: AbortSignal;
  end(): void;
}

/** Why a leaf move or request cannot go ahead now, in words for the person. */
export class SessionBusyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SessionBusyError';
  }
}

interface Running {
  id: number;
  abort: AbortController;
  ended: Promise<void>;
  finish: () => void;
}

/** Asked before a running request is stopped for a leaf move; true to stop it. */
export type ConfirmStop = (what: string) => Promise<boolean>;

/**
 * One session's state machine. Requests start through `beginRequest` (one at a time; they wait while a
 * restore or another exclusive change is under way). Every other change of the session that must not
 * interleave with a request (restore before a compaction, restore a checkpoint, switch branch, apply a
 * compaction proposed outside a request) runs through `exclusive`: a running request is first stopped,
 * after asking, and waited for, never both at once. Reviews are kept here, one per session: a new
 * proposal answers the one waiting (the waiting request stops with the reason given).
 */
export class SessionEngine<P> {
  private running: Running | undefined;
  private busy: { what: string; done: Promise<void> } | undefined;
  private pending: PendingReview<P> | undefined;
  private requests = 0;
  private proposals = 0;
  private readonly listeners = new Set<() => void>();

  get state(): EngineState {
    if (this.busy) return 'busy';
    if (this.pending?.answer) return 'awaitingReview';
    if (this.running) return 'running';
    return 'idle';
  }

  /** What an exclusive change is doing (for the panel), when one runs. */
  get busyWith(): string | undefined {
    return this.busy?.what;
  }

  /** The review waiting for a decision, if any. */
  get review(): PendingReview<P> | undefined {
    return this.pending;
  }

  /** Called after every change of state or review. Returns an unsubscribe function. */
  onDidChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Starts a request. Waits while an exclusive change runs, and for a request that was stopped and is
   * ending; throws SessionBusyError when another request of this session is running (two chats on one
   * session must not interleave), unless it only waits for a review this request answers (`replacesReview`:
   * a /compact replaces the waiting proposal, and the waiting request stops with that reason).
   * A proposal the person has not decided on yet was made on a leaf this request moves on from: it is dropped.
   */
  async beginRequest(signal?: AbortSignal, options: { replacesReview?: string } = {}): Promise<RunningRequest> {
    while (this.busy) {
      await this.busy.done;
      signal?.throwIfAborted();
    }
    const current = this.running;
    if (current) {
      // A request stopped a moment ago is still writing its last entries: wait for it, it ends by itself.
      const replaces = options.replacesReview !== undefined && this.pending?.answer !== undefined;
      if (!current.abort.signal.aborted && !replaces) {
        throw new SessionBusyError('This session is already answering a request (in this or another chat). Wait for it to finish, or stop it, then send again.');
      }
      if (replaces) this.dropReview(options.replacesReview);
      current.abort.abort();
      await current.ended;
      return this.beginRequest(signal, options);
    }
    if (this.pending && !this.pending.answer) this.dropReview('The compaction proposal was dropped: the conversation moved on since it was made. Propose it again when needed.');
    const abort = new AbortController();
    if (signal) {
      if (signal.aborted) abort.abort();
      else signal.addEventListener('abort', () => abort.abort(), { once: true });
    }
    let finish = (): void => undefined;
    const ended = new Promise<void>((resolve) => (finish = resolve));
    const running: Running = { id: ++this.requests, abort, ended, finish };
    this.running = running;
    this.fire();
    return {
      id: running.id,
      signal: abort.signal,
      end: () => {
        if (this.running !== running) return;
        this.running = undefined;
        // A review the ended request still waited for has nobody to answer it any more.
        if (this.pending?.answer) this.dropReview();
        running.finish();
        this.fire();
      },
    };
  }

  /**
   * Runs a change that must not interleave with a request. When a request runs, it is stopped first: without
   * asking when it only waits for a review that `replacesReview` says this change answers, else after
   * `confirmStop` agrees (undefined is returned when it does not). Throws SessionBusyError while another
   * exclusive change runs.
   */
  async exclusive<T>(what: string, work: () => Promise<T>, confirmStop: ConfirmStop, options: { replacesReview?: string } = {}): Promise<T | undefined> {
    const before: { what: string } | undefined = this.busy;
    if (before) throw new SessionBusyError(`This session is busy (${before.what}); try again when it has finished.`);
    let release = (): void => undefined;
    const done = new Promise<void>((resolve) => (release = resolve));
    if (this.running) {
      const answersReview = options.replacesReview !== undefined && this.pending?.answer !== undefined;
      const agreed = answersReview || (await confirmStop(what));
      if (!agreed) return undefined;
      const other: { what: string } | undefined = this.busy;
      if (other) throw new SessionBusyError(`This session is busy (${other.what}); try again when it has finished.`);
    }
    // What runs is read after the question: while the person answered, that request may have ended and another begun.
    const running = this.running;
    if (running) {
      if (options.replacesReview !== undefined && this.pending?.answer !== undefined) this.dropReview(options.replacesReview);
      running.abort.abort();
    }
    this.busy = { what, done };
    this.fire();
    try {
      if (running) await running.ended;
      return await work();
    } finally {
      this.busy = undefined;
      release();
      this.fire();
    }
  }

  /** Registers a proposal for review; one waiting before it is answered with a cancel (its request stops, saying `replacedBecause`). */
  offerReview(proposal: P, auto: boolean, modelId: string, replacedBecause: string): PendingReview<P> {
    if (this.pending) this.dropReview(replacedBecause);
    this.pending = { id: `proposal-${++this.proposals}`, proposal, auto, modelId };
    this.fire();
    return this.pending;
  }

  /**
   * For the agent loop: waits for the person's decision on `proposal`, or a cancel when the request's
   * signal aborts or a newer proposal replaces it.
   */
  awaitReview(proposal: P, modelId: string, signal: AbortSignal, replacedBecause: string): { review: PendingReview<P>; decision: Promise<ReviewDecision<P>> } {
    const review = this.offerReview(proposal, true, modelId, replacedBecause);
    const decision = new Promise<ReviewDecision<P>>((resolve) => {
      review.answer = resolve;
      if (signal.aborted) {
        this.settle(review, { action: 'cancel' });
        return;
      }
      signal.addEventListener('abort', () => this.settle(review, { action: 'cancel' }), { once: true });
    });
    this.fire();
    return { review, decision };
  }

  /** The review `id` while it is the one waiting (it stays registered); throws when it is no longer current. */
  reviewFor(id: string): PendingReview<P> {
    const pending = this.pending;
    if (!pending || pending.id !== id) throw new Error('That proposal is no longer current; compact again.');
    return pending;
  }

  /** A regenerated proposal for the review `id`: it replaces the one held, and a waiting request keeps waiting, for it. */
  revise(id: string, proposal: P): PendingReview<P> {
    const pending = this.reviewFor(id);
    pending.proposal = proposal;
    pending.id = `proposal-${++this.proposals}`;
    this.fire();
    return pending;
  }

  /** Takes the current review for the person's decision; throws when `id` is no longer the one waiting. */
  takeReview(id: string): PendingReview<P> {
    const pending = this.reviewFor(id);
    this.pending = undefined;
    this.fire();
    return pending;
  }

  /**
   * Answers the review `review` (if still the one waiting) and forgets it. A waiting request told to apply gets the
   * proposal the review holds now: nobody else says which proposal is applied.
   */
  settle(review: PendingReview<P>, answer: ReviewAnswer): void {
    if (this.pending === review) this.pending = undefined;
    const waiting = review.answer;
    review.answer = undefined;
    waiting?.(answer.action === 'apply' ? { ...answer, proposal: review.proposal } : answer);
    this.fire();
  }

  /** Drops the waiting review; a request waiting for it gets a cancel with `reason`. */
  dropReview(reason?: string): void {
    const pending = this.pending;
    if (!pending) return;
    this.settle(pending, reason ? { action: 'cancel', reason } : { action: 'cancel' });
  }

  /** Stops the running request, if any (e.g. the window closes). */
  stop(): void {
    this.running?.abort.abort();
    this.dropReview();
  }

  private fire(): void {
    for (const listener of this.listeners) listener();
  }
}
