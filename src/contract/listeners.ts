/**
 * The listeners of one kind of event. Each hears every event in the order they were added; one that
 * throws is reported through `onThrow` and keeps neither its event from the others nor anything
 * from the code that emitted it (events are emitted from inside the scheduler and process exits).
 *
 * @example
 * const listeners = new Listeners<HostEvent>((error, event) => log.warn(`a listener threw on ${event.type}`))
 * const off = listeners.add((event) => console.log(event.type))
 * if (listeners.isListening) listeners.emit({ type: 'progress', id: 'c1', message: 'half way' })
 */
export class Listeners<E> {
  readonly #set = new Set<(event: E) => void>()
  readonly #onThrow: (error: unknown, event: E) => void

  constructor(onThrow: (error: unknown, event: E) => void) {
    this.#onThrow = onThrow
  }

  /** True while someone listens: callers build an event only then. */
  get isListening(): boolean {
    return this.#set.size > 0
  }

  /** Adds a listener; returns the function that removes it. */
  add(listener: (event: E) => void): () => void {
    this.#set.add(listener)
    return () => this.#set.delete(listener)
  }

  emit(event: E): void {
    for (const listener of this.#set) {
      try {
        listener(event)
      } catch (error) {
        this.#onThrow(error, event)
      }
    }
  }
}
