// Built-in web_search: a SearXNG instance's JSON API at SEARXNG_URL (hidden without it).
import { defineTool, registry, ToolhostError } from 'toolhost'

interface SearxResult { title?: unknown; url?: unknown; content?: unknown }

registry.register(
  defineTool<{ query: string; max_results?: number }>({
    name: 'web_search',
    toolset: 'web',
    description: 'Search the web. Returns up to max_results results, each with its title, URL and a short snippet. Use it for facts that may have changed or that you do not know.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, maxLength: 500, description: 'What to search for, as you would type it into a search engine.' },
        max_results: { type: 'integer', minimum: 1, maximum: 50, description: 'How many results to return at most (default: web_search.max_results in config).' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    requiresEnv: ['SEARXNG_URL'],
    parallelSafe: true,
    readOnly: () => true,
    openWorld: true,
    handler: async (args, ctx) => {
      const base = ctx.settings.env.SEARXNG_URL ?? ''
      let url: URL
      try {
        url = new URL('search', base.endsWith('/') ? base : `${base}/`)
      } catch {
        throw new ToolhostError('E_TOOL_FAILED', `SEARXNG_URL is not a valid URL (${JSON.stringify(base)}); the operator must fix it`)
      }
      url.searchParams.set('q', args.query)
      url.searchParams.set('format', 'json')
      const timeoutMs = ctx.settings.config.web_search.timeout_ms
      const signal = AbortSignal.any([ctx.call.signal, AbortSignal.timeout(timeoutMs)])
      let response: Response
      let body: string
      try {
        response = await fetch(url, { headers: { accept: 'application/json' }, signal })
        body = await response.text()
      } catch (error) {
        if (ctx.call.signal.aborted) throw error
        const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : describeFetchError(error)
        throw new ToolhostError('E_TOOL_FAILED', `could not reach the search service at ${url.origin}: ${reason}. Try again later or answer without searching`)
      }
      if (!response.ok) {
        const hint = response.status === 403 ? ' (is the json format enabled under search.formats in its settings.yml?)' : ''
        throw new ToolhostError('E_TOOL_FAILED', `the search service answered HTTP ${response.status} ${response.statusText}${hint}`)
      }
      let data: unknown
      try {
        data = JSON.parse(body)
      } catch (error) {
        throw new ToolhostError('E_TOOL_FAILED', `the search service sent a response that is not JSON (${(error as Error).message}); is SEARXNG_URL a SearXNG instance?`)
      }
      const results = (data as { results?: unknown }).results
      if (typeof data !== 'object' || data === null || !Array.isArray(results)) {
        throw new ToolhostError('E_TOOL_FAILED', 'the search service sent JSON without a "results" list; is SEARXNG_URL a SearXNG instance?')
      }
      const max = args.max_results ?? ctx.settings.config.web_search.max_results
      const shown = (results as SearxResult[]).filter((r) => typeof r?.url === 'string').slice(0, max)
      if (shown.length === 0) return `no results for "${args.query}"`
      return shown.map((r, i) => `${i + 1}. ${text(r.title) || '(untitled)'}\n   ${String(r.url)}${text(r.content) ? `\n   ${text(r.content)}` : ''}`).join('\n')
    },
  }),
)

function text(value: unknown): string {
  return typeof value === 'string' ? value.replace(/\s+/g, ' ').trim().slice(0, 500) : ''
}

function describeFetchError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause
  return cause?.code ?? cause?.message ?? (error as Error).message
}
