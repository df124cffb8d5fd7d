/** S3 XML in and out: responses built with fast-xml-parser's XMLBuilder, request bodies parsed. */
import { createRequire } from 'node:module';
import type { XMLBuilder, XMLParser } from 'fast-xml-parser';
import { S3Error } from './errors.ts';

export const S3_NS = 'http://s3.amazonaws.com/doc/2006-03-01/';

/**
 * fast-xml-parser loads with the first S3 request, not with every start of the server (the S3
 * endpoint's libraries are a tenth of a second of CPU, and most runs send it nothing).
 */
let xml: { builder: XMLBuilder; parser: XMLParser } | undefined;
function xmlTools(): { builder: XMLBuilder; parser: XMLParser } {
  if (xml) return xml;
  const library = createRequire(import.meta.url)('fast-xml-parser') as {
    XMLBuilder: typeof XMLBuilder;
    XMLParser: typeof XMLParser;
  };
  xml = {
    builder: new library.XMLBuilder({
      ignoreAttributes: false,
      attributeNamePrefix: '@_',
      suppressEmptyNode: false,
      processEntities: true,
    }),
    parser: new library.XMLParser({
      ignoreAttributes: true,
      ignoreDeclaration: true,
      removeNSPrefix: true,
      parseTagValue: false,
      trimValues: false,
      // Go's encoding/xml (rclone, aws-sdk-go) writes the quotes of ETags as `&#34;`.
      htmlEntities: true,
      isArray: (name) => name === 'Part' || name === 'Object',
    }),
  };
  return xml;
}

/** `<?xml ...?><Root xmlns=...>...</Root>`. Arrays of a field become repeated elements. */
export function xmlDocument(root: string, body: Record<string, unknown>): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${xmlTools().builder.build({ [root]: { '@_xmlns': S3_NS, ...body } })}`;
}

export function errorDocument(code: string, message: string, extra: Record<string, string>, requestId: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${xmlTools().builder.build({ Error: { Code: code, Message: message, ...extra, RequestId: requestId } })}`;
}

/** Parses a small XML request body; anything unparsable is MalformedXML. */
export function parseXml(text: string): Record<string, unknown> {
  try {
    const parsed = xmlTools().parser.parse(text, true) as unknown;
    if (typeof parsed !== 'object' || parsed === null) throw new Error('not an element');
    return parsed as Record<string, unknown>;
  } catch {
    throw new S3Error(
      'MalformedXML',
      'The XML you provided was not well-formed or did not validate against our published schema.',
    );
  }
}
