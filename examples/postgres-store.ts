import { createJwtVerifier, createRouter } from '@workforce-kit/express-adapter';
import { createPostgresStore } from '@workforce-kit/postgres';
import express from 'express';
import pg from 'pg';

// Applies the schema migrations first (the first process to start does, once).
const store = await createPostgresStore({
  client: new pg.Pool({ connectionString: process.env.DATABASE_URL }),
  ownsClient: true,
  namedStatements: true, // pg's prepared statements: each planned once per connection
});
const auth = createJwtVerifier({
  jwksUrl: 'https://id.example.com/.well-known/jwks.json',
  issuer: 'https://id.example.com/',
  audience: 'workforce-api',
});

const app = express();
app.use(createRouter({ store, auth }));
app.listen(3000);
