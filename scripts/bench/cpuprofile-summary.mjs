#!/usr/bin/env node
// Where a `node --cpu-prof` profile's time went, as BENCHMARKS.md quotes it:
//   node scripts/bench/cpuprofile-summary.mjs FILE.cpuprofile [LABEL=REGEX …]
// prints the sampled total, self time by package or file, and for each LABEL=REGEX the inclusive
// time of the outermost frames whose "function url:line" matches (so nested matches count once).
import { readFileSync } from 'node:fs'

const [file, ...groups] = process.argv.slice(2)
if (!file) {
  process.stderr.write('usage: node scripts/bench/cpuprofile-summary.mjs FILE.cpuprofile [LABEL=REGEX …]\n')
  process.exit(2)
}
const profile = JSON.parse(readFileSync(file, 'utf8'))
const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const selfUs = new Map()
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)))
const inclusive = new Map()
const total = (node) => {
  if (!inclusive.has(node.id)) inclusive.set(node.id, (selfUs.get(node.id) ?? 0) + (node.children ?? []).reduce((sum, c) => sum + total(byId.get(c)), 0))
  return inclusive.get(node.id)
}
const label = (node) => `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url}:${node.callFrame.lineNumber}`
const where = (node) => {
  const name = node.callFrame.functionName
  if (['(idle)', '(program)', '(garbage collector)'].includes(name)) return name
  const url = node.callFrame.url
  if (!url) return '(native)'
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (pkg) return `package ${pkg[1]}`
  if (url.startsWith('node:')) return 'node internals'
  return url.replace(/^file:\/\/.*?\/(dist|src|plugins|bin)\//, '$1/')
}
const ms = (us) => `${(us / 1000).toFixed(1).padStart(8)} ms`

const root = profile.nodes[0]
console.log(`${ms(total(root))}  sampled in all`)
const self = new Map()
for (const [id, us] of selfUs) self.set(where(byId.get(id)), (self.get(where(byId.get(id))) ?? 0) + us)
console.log('self time by package or file:')
for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`${ms(us)}  ${name}`)
if (groups.length > 0) console.log('inclusive time of the outermost matching frames:')
for (const group of groups) {
  const [name, pattern] = group.includes('=') ? [group.slice(0, group.indexOf('=')), group.slice(group.indexOf('=') + 1)] : [group, group]
  const regex = new RegExp(pattern)
  let us = 0
  const walk = (node) => {
    if (regex.test(label(node))) us += total(node)
    else for (const child of node.children ?? []) walk(byId.get(child))
  }
  walk(root)
  console.log(`${ms(us)}  ${name}`)
}
