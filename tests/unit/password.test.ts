// Password hashes: salted scrypt, verified in constant time, malformed hashes refused.
import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../lib/core/access/password';

describe('password hashing', () => {
  it('verifies the right password only, with a new salt every time', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[\w-]+\$[\w-]+$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('correct horse battery', a)).toBe(true);
    expect(await verifyPassword('correct horse batterY', a)).toBe(false);
    expect(await verifyPassword('', a)).toBe(false);
  });

  it('refuses hashes it did not make', async () => {
    expect(await verifyPassword('x', '')).toBe(false);
    expect(await verifyPassword('x', 'bcrypt$2b$10$abc')).toBe(false);
    expect(await verifyPassword('x', 'scrypt$32768$8$1$c2FsdA')).toBe(false);
  });
});
