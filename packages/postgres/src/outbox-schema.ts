/**
 * The channel the write statement notifies (`pg_notify`) when it queued a delivery, and the
 * relays listen on.
 */
export const OUTBOX_CHANNEL = 'workforce_kit_outbox';
