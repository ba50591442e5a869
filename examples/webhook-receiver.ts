import { createServer } from 'node:http';
import type { Webhooks } from '@workforce-kit/types';
import { Webhook } from 'standardwebhooks';

const webhook = new Webhook(process.env.WEBHOOK_SECRET ?? ''); // the server's whsec_… secret
const handled = new Set<string>(); // keep these in your database, beside what you do with them

createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => {
    body += chunk.toString();
  });
  req.on('end', () => {
    try {
      // Throws unless the signature matches and webhook-timestamp is within 5 minutes of now.
      const hook = webhook.verify(body, req.headers as Record<string, string>) as Webhooks['body'];
      const id = String(req.headers['webhook-id']); // the same on every retry of one event
      if (!handled.has(id)) {
        handled.add(id);
        console.log(hook.type, hook.data.record.guid, hook.data.occurredAt);
      }
      res.writeHead(204).end(); // any 2xx acknowledges; anything else is retried
    } catch {
      res.writeHead(400).end();
    }
  });
}).listen(4000);
