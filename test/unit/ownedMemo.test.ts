// A memo kept on its owner: found again through the owner only, invisible to spreads, JSON and key listings, and kept for frozen owners too.
import { describe, expect, it } from 'vitest';
import { OwnedMemo } from '../../src/core/session/ownedMemo';

describe('OwnedMemo', () => {
  it('keeps a value per owner, replaced by a later set, and nothing for an owner never set', () => {
    const memo = new OwnedMemo<object, number>('test');
    const first = { id: 'a' };
    const second = { id: 'a' };
    memo.set(first, 1);
    expect(memo.get(first)).toBe(1);
    expect(memo.get(second)).toBeUndefined();
    memo.set(first, 2);
    expect(memo.get(first)).toBe(2);
    expect(new OwnedMemo<object, number>('test').get(first)).toBeUndefined();
  });

  it('is not seen by spreads, JSON, Object.keys, structuredClone or equality', () => {
    const memo = new OwnedMemo<object, { big: number[] }>('hidden');
    const entry = { type: 'user', id: 'u1', text: 'hi' };
    const path = [entry];
    memo.set(entry, { big: [1, 2, 3] });
    memo.set(path, { big: [4] });
    expect({ ...entry }).toEqual({ type: 'user', id: 'u1', text: 'hi' });
    expect(memo.get({ ...entry })).toBeUndefined();
    expect(JSON.stringify(entry)).toBe('{"type":"user","id":"u1","text":"hi"}');
    expect(Object.keys(entry)).toEqual(['type', 'id', 'text']);
    expect(memo.get(structuredClone(entry))).toBeUndefined();
    expect(entry).toStrictEqual({ type: 'user', id: 'u1', text: 'hi' });
    expect([...path]).toEqual([entry]);
    expect(memo.get([...path])).toBeUndefined();
    expect(memo.get(path)).toEqual({ big: [4] });
  });

  it('keeps the value of a frozen owner beside it', () => {
    const memo = new OwnedMemo<object, string>('frozen');
    const owner = Object.freeze({ id: 'f' });
    memo.set(owner, 'kept');
    expect(memo.get(owner)).toBe('kept');
    memo.set(owner, 'again');
    expect(memo.get(owner)).toBe('again');
  });
});
