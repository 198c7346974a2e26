/**
 * The one database-error wrapper of the services: runs their database work and turns an error a database
 * function raised with a DWxxx SQLSTATE into its ApiError (`apiErrorFromDatabase`); anything else (an
 * unreachable database included: the pipeline answers 503) passes through unchanged.
 */
import { apiErrorFromDatabase } from "./errors.ts";

export async function inDatabase<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw apiErrorFromDatabase(error) ?? error;
  }
}
