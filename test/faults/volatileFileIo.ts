// A FileIo with the same write semantics as nodeFileIo minus fsync, for families that test logic rather than durability.
import { constants as fsConstants, promises as fs } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { errorCode, nodeFileIo, type FileIo } from '../../src/core/storage/fileIo';

/**
 * fsync costs 2–300 ms on a busy machine (journal commits serialize); the corruption and concurrency families run
 * thousands of repairs, so they use this. Durability itself is what the kill-9 family checks, with nodeFileIo.
 */
export const volatileFileIo: FileIo = {
  ...nodeFileIo,
  async appendDurable(path, text) {
    const data = Buffer.from(text, 'utf8');
    const handle = await fs.open(path, 'a');
    try {
      const { bytesWritten } = await handle.write(data, 0, data.length);
      if (bytesWritten !== data.length)
        throw Object.assign(new Error(`short write to ${path}`), { code: 'ESHORTWRITE' });
    } finally {
      await handle.close();
    }
  },
  async writeFileAtomic(path, data) {
    const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    await fs.writeFile(temp, data);
    await fs.rename(temp, path);
  },
  async createExclusive(path, data) {
    try {
      await fs.writeFile(path, data, { flag: fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_WRONLY });
      return true;
    } catch (error) {
      if (errorCode(error) === 'EEXIST') return false;
      throw error;
    }
  },
  truncate: (path, length) => fs.truncate(path, length),
};
