-- connections: accounts connected with a token the user made at the provider (a GitHub personal
-- access token, a Slack bot token) instead of OAuth consent: auth scheme `token`.
ALTER TABLE "connections" DROP CONSTRAINT "connections_auth_scheme_check";
ALTER TABLE "connections" ADD CONSTRAINT "connections_auth_scheme_check" CHECK ("auth_scheme" IN ('oauth2', 'api_key', 'token'));
