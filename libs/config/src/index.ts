export * from './app.config';
