import type { ServeAuthSettings } from './serve-auth-settings.js'

/** RFC 9728's well-known path prefix for OAuth protected resource metadata. */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource'

/**
 * Where the metadata of `resource` is served (RFC 9728 §3.1: the well-known prefix inserted before
 * the resource's path): `https://t.example/mcp` → `https://t.example/.well-known/oauth-protected-resource/mcp`.
 *
 * @example
 * metadataUrlOf(new URL('https://t.example/mcp')) // 'https://t.example/.well-known/oauth-protected-resource/mcp'
 */
export function metadataUrlOf(resource: URL): string {
  const path = resource.pathname === '/' ? '' : resource.pathname
  return `${resource.origin}${RESOURCE_METADATA_PATH}${path}`
}

/** True for the paths the metadata is served at: the path-inserted one, and the bare prefix clients also try. */
export function isMetadataPath(pathname: string, resource: URL): boolean {
  return pathname === RESOURCE_METADATA_PATH || pathname === new URL(metadataUrlOf(resource)).pathname
}

/**
 * The protected resource metadata document (RFC 9728 §2) MCP clients read to find the authorization
 * server(s) to get a token from, and the scopes to ask for.
 *
 * @example
 * resourceMetadata(settings, new URL('https://t.example/mcp'))
 */
export function resourceMetadata(settings: ServeAuthSettings, resource: URL): Record<string, unknown> {
  return {
    resource: resource.href,
    ...(settings.authorizationServers.length > 0 ? { authorization_servers: settings.authorizationServers } : {}),
    ...(settings.scopes.length > 0 ? { scopes_supported: settings.scopes } : {}),
    bearer_methods_supported: ['header'],
    resource_name: 'toolhost',
  }
}
