// Card signatures across SDKs: signs cards with @a2a-js/sdk's
// generateAgentCardSignature, and checks cards with its
// verifyAgentCardSignature. Driven by interop/cards_test.go over stdin and
// stdout (JSON), one mode per run:
//
//   node card-signatures.mjs sign   < {"cards":[card, ...]}
//     -> {"jwks":{"keys":[publicJWK]}, "cards":[signedCard, ...]}
//   node card-signatures.mjs verify < {"jwks":{"keys":[...]}, "cards":[card, ...]}
//     -> {"results":[{"ok":true}|{"ok":false,"error":"..."}, ...]}
import { generateKeyPairSync, createPublicKey } from 'node:crypto';
import { generateAgentCardSignature, verifyAgentCardSignature } from '@a2a-js/sdk';

async function readStdin() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

async function sign(input) {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'a2a-js-key-1', alg: 'ES256', use: 'sig' };
  const signer = generateAgentCardSignature(privateKey, { alg: 'ES256', kid: 'a2a-js-key-1', typ: 'JOSE' });
  const cards = [];
  for (const card of input.cards) cards.push(await signer(card));
  return { jwks: { keys: [jwk] }, cards };
}

async function verify(input) {
  const keys = new Map(input.jwks.keys.map((k) => [k.kid, k]));
  const verifier = verifyAgentCardSignature(async (kid) => {
    const jwk = keys.get(kid);
    if (!jwk) throw new Error(`no key ${kid}`);
    return createPublicKey({ key: jwk, format: 'jwk' });
  });
  // The verifier logs each failed entry at debug level; keep stdout JSON.
  console.debug = () => {};
  const results = [];
  for (const card of input.cards) {
    try {
      await verifier(card);
      results.push({ ok: true });
    } catch (e) {
      results.push({ ok: false, error: String(e && e.message ? e.message : e) });
    }
  }
  return { results };
}

const mode = process.argv[2];
const input = await readStdin();
const out = mode === 'sign' ? await sign(input) : mode === 'verify' ? await verify(input) : null;
if (!out) {
  console.error('usage: node card-signatures.mjs sign|verify < input.json');
  process.exit(2);
}
process.stdout.write(JSON.stringify(out));
