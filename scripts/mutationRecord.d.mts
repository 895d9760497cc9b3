/** Types of mutationRecord.mjs (plain JavaScript, as scripts/mutation.mjs runs under node). */
export declare function canonicalRecord<T extends object>(report: T): T;
export declare function canonicalRecordText(report: object): string;
