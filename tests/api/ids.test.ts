import { describe, expect, it } from "vitest";
import { IdTaken, takenIn, timeOrderedId, withNewId } from "../../worker/lib/ids.ts";
import { ApiError } from "../../worker/lib/errors.ts";

const MS = Date.UTC(2026, 10, 29, 18, 0, 0);
const TAKEN = takenIn("earn_positions");
/** A write that fails with `failures` in turn, then answers its id; `ids` lists every id it was given. */
function writer(failures: unknown[]) {
  const ids: number[] = [];
  const write = async (id: number) => {
    ids.push(id);
    const failure = failures[ids.length - 1];
    if (failure !== undefined) throw failure;
    return id;
  };
  return { ids, write };
}

describe("time-ordered ids drawn again when taken", () => {
  it("draws again after a batch that met a taken primary key or movement key, and answers the write that went through", async () => {
    const w = writer([new Error("D1_ERROR: UNIQUE constraint failed: earn_positions.id: SQLITE_CONSTRAINT"), new Error("UNIQUE constraint failed: movements.key"), new IdTaken()]);
    const id = await withNewId(TAKEN, w.write, MS);
    expect(w.ids).toHaveLength(4);
    expect(id).toBe(w.ids[3]);
  });

  it("gives up after five taken draws with try_again (503)", async () => {
    const w = writer(Array.from({ length: 10 }, () => new Error("UNIQUE constraint failed: earn_positions.id")));
    const err = await withNewId(TAKEN, w.write, MS).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ key: "try_again", status: 503 });
    expect(w.ids).toHaveLength(5);
  });

  it("passes any other failure on as it came, drawing once: an overdraft, another unique key of the table, another table's id", async () => {
    for (const message of [
      "CHECK constraint failed: available >= 0",
      "UNIQUE constraint failed: earn_positions.user_id, earn_positions.client_oid",
      "UNIQUE constraint failed: earn_products.id",
    ]) {
      const failure = new Error(message);
      const w = writer([failure]);
      await expect(withNewId(TAKEN, w.write, MS)).rejects.toBe(failure);
      expect(w.ids).toHaveLength(1);
    }
  });

  it("keeps a span of consecutive ids inside the millisecond it was drawn in", () => {
    const first = (MS - Date.UTC(2026, 0, 1)) * 4096;
    for (let i = 0; i < 5000; i++) {
      const id = timeOrderedId(MS, 20);
      expect(id).toBeGreaterThanOrEqual(first);
      expect(id + 19).toBeLessThan(first + 4096);
    }
  });
});
