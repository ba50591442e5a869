// What the TSDoc examples of packages/server/src take as given: each example sees these names unless
// it declares its own (scripts/check-tsdoc-examples.mjs, docs/development.md).
import type { WorkforceStore } from '@workforce-kit/core';
import type { AccessTokenVerifier } from '@workforce-kit/http';
import type { OutboxDelivery } from '@workforce-kit/postgres';
import type { Express } from 'express';
import type pg from 'pg';

/** The host's Express app, its store, its token verifier and its connection pool. */
export declare const app: Express;
export declare const store: WorkforceStore;
export declare const auth: AccessTokenVerifier;
export declare const pool: pg.Pool;

/** A webhook receiver's URL, the secret its deliveries are signed with, and one delivery. */
export declare const url: string;
export declare const secret: string;
export declare const delivery: OutboxDelivery;
