-- The rate-limit counts shared by every process of a deployment (the reference server's
-- RATE_LIMIT_SCOPE=shared), in the layout rate-limiter-flexible's RateLimiterPostgres reads and
-- writes: one row per window and key, expired rows cleared by the limiter itself.
CREATE TABLE IF NOT EXISTS workforce_kit_rate_limits (
  key varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);
