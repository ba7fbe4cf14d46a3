import assert from 'node:assert/strict';
import { detectSecrets, ibanChecksumValid, luhnValid, maskOrWithhold, maskSecrets } from '../../../src/engine/write/mask';

// Test keys are assembled at run time so this file itself does not look like it leaks credentials.
const rep = (c: string, n: number) => c.repeat(n);
const key = (prefix: string, body: string) => prefix + body;

describe('maskSecrets', () => {
  describe('bad input', () => {
    it('withholds instead of passing through when the input is not text', () => {
      assert.deepEqual(maskOrWithhold(undefined), { ok: false, reason: 'not_text' });
      assert.deepEqual(maskOrWithhold({ text: 'x' }), { ok: false, reason: 'not_text' });
    });

    it('throws a TypeError for non-string input to maskSecrets', () => {
      assert.throws(() => maskSecrets(42 as unknown as string), TypeError);
    });

    it('returns empty text unchanged', () => {
      assert.deepEqual(maskSecrets(''), { text: '', classes: [], count: 0 });
    });
  });

  describe('IBANs', () => {
    it('masks a valid German IBAN written in groups', () => {
      const r = maskSecrets('Überweise an DE89 3704 0044 0532 0130 00 bis Freitag.');
      assert.equal(r.text, 'Überweise an [IBAN] bis Freitag.');
      assert.deepEqual(r.classes, ['iban']);
      assert.equal(r.count, 1);
    });

    it('masks a valid British IBAN and a compact one', () => {
      assert.equal(maskSecrets('GB82 WEST 1234 5698 7654 32').text, '[IBAN]');
      assert.equal(maskSecrets('iban=DE89370400440532013000;').text, 'iban=[IBAN];');
    });

    it('keeps an IBAN-shaped string with a wrong checksum', () => {
      const bad = 'DE88 3704 0044 0532 0130 00';
      assert.equal(maskSecrets(bad).text, bad);
      assert.equal(ibanChecksumValid('DE88370400440532013000'), false);
      assert.equal(ibanChecksumValid('DE89370400440532013000'), true);
    });

    it('does not swallow an uppercase word that follows the IBAN', () => {
      assert.equal(maskSecrets('DE89 3704 0044 0532 0130 00 OK').text, '[IBAN] OK');
    });
  });

  describe('payment cards', () => {
    it('masks Luhn-valid card numbers with spaces, dashes or none', () => {
      assert.equal(maskSecrets('Visa 4111 1111 1111 1111.').text, 'Visa [CARD].');
      assert.equal(maskSecrets('MC 5500-0000-0000-0004').text, 'MC [CARD]');
      assert.equal(maskSecrets('Amex 3782 822463 10005').text, 'Amex [CARD]');
      assert.equal(maskSecrets('4012888888881881').text, '[CARD]');
      assert.deepEqual(maskSecrets('4111111111111111').classes, ['card']);
    });

    it('keeps digit runs that fail Luhn', () => {
      assert.equal(luhnValid('4111111111111112'), false);
      assert.equal(maskSecrets('Order 4111 1111 1111 1112').text, 'Order 4111 1111 1111 1112');
    });

    it('keeps phone numbers, timestamps and long ids', () => {
      for (const s of ['+49 1701 2345678', 'call +4915112345678', 'ts 1700000000000', 'id 1234567890123456789']) {
        assert.equal(maskSecrets(s).text, s, s);
      }
    });
  });

  describe('API keys and tokens', () => {
    const cases: [string, string][] = [
      ['OpenAI', key('sk-', 'abcDEF123456ghiJKL789012mnoPQR')],
      ['OpenAI project', key('sk-proj-', 'Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56')],
      ['Anthropic', key('sk-ant-api03-', 'Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56-xyZ_12')],
      ['GitHub classic', key('ghp_', 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8')],
      ['GitHub oauth', key('gho_', 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8')],
      ['GitHub server', key('ghs_', 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8')],
      ['GitHub fine-grained', key('github_pat_', '11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz')],
      ['GitLab', key('glpat-', 'Ab12Cd34Ef56Gh78Ij90')],
      ['Slack bot', key('xoxb-', '123456789012-1234567890123-AbCdEfGhIjKlMnOp')],
      ['Slack user', key('xoxp-', '123456789012-1234567890123-AbCdEfGhIjKlMnOp')],
      ['AWS access key', key('AKIA', 'IOSFODNN7EXAMPLE')],
      ['AWS session key', key('ASIA', 'IOSFODNN7EXAMPLE')],
      ['Google', key('AIza', 'SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q')],
      ['Stripe secret', key('sk_live_', '4eC39HqLyjWDarjtT1zdp7dc')],
      ['Stripe restricted', key('rk_live_', '4eC39HqLyjWDarjtT1zdp7dc')],
      ['npm', key('npm_', 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8')],
      ['Hugging Face', key('hf_', 'AbCdEfGhIjKlMnOpQrStUvWxYz12345678')],
      ['JWT', key('eyJ', 'hbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U')],
    ];
    for (const [name, value] of cases) {
      it(`masks a ${name} key inside prose`, () => {
        const r = maskSecrets(`use ${value} for the call`);
        assert.equal(r.text, 'use [API_KEY] for the call', name);
        assert.deepEqual(r.classes, ['api_key']);
      });
    }

    it('masks the value of aws_secret_access_key but keeps its name', () => {
      const r = maskSecrets(`aws_secret_access_key = ${'wJalrXUtnFEMI/K7MDENG/bPxRfiCY' + 'EXAMPLEKEY'}`);
      assert.equal(r.text, 'aws_secret_access_key = [API_KEY]');
    });

    it('masks high-entropy generic assignments and keeps low-entropy ones', () => {
      assert.equal(maskSecrets('password=Tr0ub4dor&3x').text, 'password=[PASSWORD]');
      assert.equal(maskSecrets('api_key: "q8Zr2LmX9vT4nB7k"').text, 'api_key: "[API_KEY]"');
      assert.equal(maskSecrets('token: 9f8e7d6c5b4a3f2e1d0c').text, 'token: [API_KEY]');
      assert.equal(maskSecrets('token: none').text, 'token: none');
      assert.equal(maskSecrets('password: ${DB_PASSWORD}').text, 'password: ${DB_PASSWORD}');
      assert.equal(maskSecrets('The token: we discussed it').text, 'The token: we discussed it');
    });

    it('does not mask a hyphenated word after sk-', () => {
      const s = 'sk-this-is-just-a-long-hyphenated-name';
      assert.equal(maskSecrets(s).text, s);
    });
  });

  describe('private keys and connection strings', () => {
    it('masks a whole PEM private key block', () => {
      const pem = ['-----BEGIN RSA PRIVATE KEY-----', 'MIIEpAIBAAKCAQEA' + rep('x', 40), rep('Q', 64), '-----END RSA PRIVATE KEY-----'].join('\n');
      const r = maskSecrets(`before\n${pem}\nafter`);
      assert.equal(r.text, 'before\n[PRIVATE_KEY]\nafter');
      assert.deepEqual(r.classes, ['private_key']);
    });

    it('masks an unterminated PEM private key up to the end of its body', () => {
      const r = maskSecrets('-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nabc');
      assert.equal(r.text, '[PRIVATE_KEY]');
    });

    it('masks the password of a connection string and keeps user and host', () => {
      const r = maskSecrets('DATABASE_URL=postgres://app:s3cr3t-Pw@db.local:5432/main');
      assert.equal(r.text, 'DATABASE_URL=postgres://app:[PASSWORD]@db.local:5432/main');
      assert.deepEqual(r.classes, ['password']);
    });
  });

  describe('things that must survive', () => {
    it('keeps dates, times, versions, UUIDs, git SHAs and plain numbers', () => {
      const text = [
        'Meeting on 2024-05-17 at 14:30, also 17.05.2024 and 05/17/2024.',
        'ISO 2024-05-17T14:30:00.000Z, version 1.98.2 and v20.11.1.',
        'UUID 123e4567-e89b-12d3-a456-426614174000 and 12345678-1234-1234-1234-123456789012.',
        'Commit 9fceb02d0ae598e95dc970b74767f19372d61af8 (short 9fceb02).',
        'Phone 030 12345678, amount 1.234.567,89 EUR, port 5432, PLZ 10115.',
        'https://example.com/path#section and user@example.com',
      ].join('\n');
      const r = maskSecrets(text);
      assert.equal(r.text, text);
      assert.equal(r.count, 0);
    });

    it('reports several classes in order and counts every replacement', () => {
      const r = maskSecrets(`DE89 3704 0044 0532 0130 00 and 4111 1111 1111 1111 and ${key('ghp_', 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8')} and GB82 WEST 1234 5698 7654 32`);
      assert.equal(r.count, 4);
      assert.deepEqual(new Set(r.classes), new Set(['iban', 'card', 'api_key']));
    });
  });

  describe('detectSecrets and maskOrWithhold', () => {
    it('detects a credential for tagging on import', () => {
      assert.deepEqual(detectSecrets(`key ${key('AKIA', 'IOSFODNN7EXAMPLE')}`), { found: true, classes: ['api_key'] });
      assert.deepEqual(detectSecrets('nothing here, 2024-01-01'), { found: false, classes: [] });
    });

    it('returns masked text through maskOrWithhold', () => {
      const r = maskOrWithhold('IBAN DE89370400440532013000');
      assert.equal(r.ok, true);
      assert.equal(r.ok && r.text, 'IBAN [IBAN]');
    });
  });
});
