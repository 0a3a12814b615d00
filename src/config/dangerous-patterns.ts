/**
 * Commands `terminal` treats as destructive (asked for even in `auto` permission mode). Each is
 * matched against the command line as written and against every command it runs as the shell parse
 * resolves it (`'rm' -rf`, `/bin/rm -rf`, `env rm -rf`, `sh -c "rm -rf …"` all become `rm -rf …`).
 */
export const DEFAULT_DANGEROUS_PATTERNS = [
  // rm with a recursive or forcing option anywhere (GNU rm takes options after operands too), or with
  // an argument known only at run time (`rm $FLAGS dir`).
  String.raw`\brm\s+(\S+\s+)*?(-[a-zA-Z]*[rRfd][a-zA-Z]*|--recursive|--force|--dir|\S*\$\S*)(\s|$)`,
  String.raw`\bfind\b.*\s-delete\b`,
  String.raw`\brsync\b.*\s--(delete|remove-source-files)`,
  String.raw`\bshred\b`,
  String.raw`\bgit\s+push\b.*(\s--force\b|\s-f\b|\s--force-with-lease\b)`,
  String.raw`\bgit\s+(reset\s+--hard|clean\s+-[a-zA-Z]*f)`,
  String.raw`\bmkfs(\.\w+)?\b`,
  String.raw`\bdd\b.*\bof=/dev/`,
  String.raw`>\s*/dev/(sd|nvme|hd|vd)`,
  String.raw`\b(shutdown|reboot|halt|poweroff)\b`,
  String.raw`\bchmod\s+(-R\s+)?0?777\b`,
  String.raw`:\(\)\s*\{\s*:\|:&\s*\};:`,
]
