import { createMemoryStore } from '@workforce-kit/core';
import { describeStoreConformance } from '@workforce-kit/core/testing';

describeStoreConformance('memory', () => createMemoryStore());
