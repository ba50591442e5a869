import { openPGlite } from '/work/main/packages/postgres/dist/index.js';

const mb = (n) => Math.round(n / 1048576);
const im = Number(process.argv[3]);
const db = await openPGlite(process.argv[2], im ? { initialMemory: im * 1048576 } : {});
await db.query('select count(*) from pg_class');
for (let i = 0; i < 300; i++) await db.query('select * from employees limit 50');
const m = process.memoryUsage();
console.log('initial', im || 'default', 'rss', mb(m.rss), 'external', mb(m.external));
await db.close();
