import { openPGlite } from '/work/main/packages/postgres/dist/index.js';

const mb = (n) => Math.round(n / 1048576);
const show = (l) => {
  const m = process.memoryUsage();
  console.log(
    l,
    'rss',
    mb(m.rss),
    'heapUsed',
    mb(m.heapUsed),
    'heapTotal',
    mb(m.heapTotal),
    'external',
    mb(m.external),
    'ab',
    mb(m.arrayBuffers),
  );
};
show('start');
const db = await openPGlite(process.argv[2]);
show('open');
await db.query('select count(*) from pg_class');
show('query');
console.log('wasm mem MB', mb(db.Module?.HEAP8?.length ?? 0));
await db.close();
