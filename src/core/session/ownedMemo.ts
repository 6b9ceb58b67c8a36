// A value kept on the object it belongs to (a path, a session's first entry, a count cache) under a hidden key: it dies with its owner at the next minor collection.
/**
 * Why not a WeakMap: V8's minor (scavenge) collections keep every WeakMap entry alive, dead key or not, so a memo
 * holding a whole session (a fold, a count store, a path's depth lookup) outlived its closed session until the next
 * full collection, and each minor collection copied and promoted it. A property of the owner is reached only through
 * the owner, so a dead session and its memos are freed together. The property is non-enumerable: spreads, JSON and
 * equality checks never see it. An owner that cannot take properties (frozen) keeps its value in a WeakMap instead.
 */
export class OwnedMemo<K extends object, V> {
  private readonly key: symbol;
  private readonly frozen = new WeakMap<K, V>();

  constructor(name: string) {
    this.key = Symbol(name);
  }

  get(owner: K): V | undefined {
    const value = (owner as unknown as Record<symbol, V | undefined>)[this.key];
    return value !== undefined ? value : this.frozen.get(owner);
  }

  set(owner: K, value: V): void {
    if (Object.isExtensible(owner) || Object.hasOwn(owner, this.key)) Object.defineProperty(owner, this.key, { value, writable: true, configurable: true, enumerable: false });
    else this.frozen.set(owner, value);
  }
}
